/**
 * `baton service install` writes a systemd user unit that systemd itself accepts (`systemd-analyze verify`),
 * into $XDG_CONFIG_HOME — a temp folder here, never the real ~/.config — with the database's settings in an
 * environment file of mode 0600 and never in the unit; `uninstall` removes the unit. Paths holding `%`
 * (a systemd specifier), `$`, quotes, backslashes, spaces and non-ASCII letters reach systemd as they are.
 */
import { execa } from 'execa';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { servicePath, systemdUnit } from '../../src/app/machine/service-unit.js';
import { CLI } from '../helpers/harness.js';

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const linux = process.platform === 'linux';
/** scripts/test.sh installs it on Linux (need_systemd_analyze): missing there is a failure, not a skip. */
async function verify(unit: string, runtime: string) {
  return execa('systemd-analyze', ['verify', '--user', unit], {
    env: { XDG_RUNTIME_DIR: runtime },
    reject: false,
  });
}

/**
 * Accepted, and without a word: systemd drops a line it cannot read with a warning ("Failed to resolve unit
 * specifiers …, ignoring: Invalid slot") and still exits 0 — how an EnvironmentFile= with `%` went unseen.
 */
async function verifiedClean(unit: string, runtime: string): Promise<string> {
  const r = await verify(unit, runtime);
  return r.exitCode === 0 && r.stderr.trim() === '' ? 'clean' : `exit ${r.exitCode}: ${r.stderr}`;
}

/**
 * The file systemd takes a path setting's value for, if that file exists (EnvironmentFile= is read like
 * ConditionPathExists=: specifiers expanded, no quotes), else null — also when systemd drops the value.
 */
async function resolved(value: string): Promise<string | null> {
  const r = await execa('systemd-analyze', ['condition', `ConditionPathExists=${value}`], { reject: false });
  const m = /ConditionPathExists=(.*) succeeded\.$/m.exec(r.stderr);
  return r.exitCode === 0 && m ? m[1]! : null;
}

const setting = (unit: string, key: string): string[] =>
  unit
    .split('\n')
    .filter((l) => l.startsWith(`${key}=`))
    .map((l) => l.slice(key.length + 1));

/** A folder name holding everything systemd reads specially in a unit. */
const NASTY = `a 100%h 5%z é $HOME \${X} "q" 's' \\b`;

describe('baton service', () => {
  it.skipIf(!linux)(
    'installs a user unit that systemd-analyze verifies, and uninstalls it',
    async () => {
      dir = mkdtempSync(join(tmpdir(), 'baton-service-'));
      const runtime = join(dir, 'run');
      mkdirSync(runtime, { mode: 0o700 });
      const env = {
        XDG_CONFIG_HOME: join(dir, 'config'),
        XDG_STATE_HOME: join(dir, 'state'),
        BATON_BUS_URL: 'postgres://baton:s3cret@db.example/baton',
      };
      const r = await execa('node', [CLI, 'service', 'install', '--user'], { env, reject: false });
      expect(r.exitCode, r.stderr).toBe(0);
      const unit = join(dir, 'config', 'systemd', 'user', 'baton.service');
      expect(r.stdout).toContain('systemctl --user enable --now baton.service');
      const text = readFileSync(unit, 'utf8');
      expect(text).toContain('Restart=on-failure');
      expect(text).toMatch(/^ExecStart=.* daemon --machine --stay$/m);
      // Required, not `-`: install always writes it, and a service without it would run with no database.
      expect(text).toContain(`EnvironmentFile=${join(dir, 'config', 'baton', 'env')}\n`);
      expect(text).toContain(`XDG_STATE_HOME=${join(dir, 'state')}`);
      expect(text).not.toContain('s3cret');
      expect(text).not.toContain('BATON_BUS_URL=');
      expect(statSync(join(dir, 'config', 'baton', 'env')).mode & 0o777).toBe(0o600);
      expect(readFileSync(join(dir, 'config', 'baton', 'env'), 'utf8')).not.toContain('s3cret');

      const ok = await verify(unit, runtime);
      expect(ok.exitCode, ok.stderr).toBe(0);
      // The check can fail: a unit systemd refuses does not pass it.
      const bad = join(dir, 'bad.service');
      writeFileSync(bad, text.replace(/^ExecStart=.*$/m, 'ExecStart=relative/node daemon'));
      expect((await verify(bad, runtime)).exitCode).not.toBe(0);

      const un = await execa('node', [CLI, 'service', 'uninstall'], { env, reject: false });
      expect(un.exitCode, un.stderr).toBe(0);
      expect(existsSync(unit)).toBe(false);
      expect(existsSync(join(dir, 'config', 'baton', 'env'))).toBe(true);
    },
    30_000,
  );

  it.skipIf(!linux)(
    'paths with %, $, quotes, backslashes, spaces and non-ASCII: systemd reads each as it is',
    async () => {
      dir = mkdtempSync(join(tmpdir(), 'baton-service-'));
      const runtime = join(dir, 'run');
      mkdirSync(runtime, { mode: 0o700 });
      const config = join(dir, `config ${NASTY}`);
      const state = join(dir, `state ${NASTY}`);
      const pathDir = join(dir, `bin ${NASTY}`);
      const env = { XDG_CONFIG_HOME: config, XDG_STATE_HOME: state, PATH: `${pathDir}:${process.env.PATH}` };
      const r = await execa('node', [CLI, 'service', 'install', '--user'], { env, reject: false });
      expect(r.exitCode, r.stderr).toBe(0);
      const unit = join(config, 'systemd', 'user', 'baton.service');
      const text = readFileSync(unit, 'utf8');
      expect(await verifiedClean(unit, runtime)).toBe('clean');

      // The environment file as systemd resolves it is the one baton wrote (`%h` once named another).
      const envFile = join(config, 'baton', 'env');
      expect(existsSync(envFile)).toBe(true);
      const [value] = setting(text, 'EnvironmentFile');
      expect(await resolved(value!)).toBe(envFile);
      // Quoted words: `\\` and `\"` escaped, `%` doubled; in Environment= `$` means nothing.
      const quoted = (s: string) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/%/g, '%%')}"`;
      expect(setting(text, 'Environment')).toEqual([
        quoted(`PATH=${servicePath(env.PATH)}`),
        quoted(`XDG_STATE_HOME=${state}`),
      ]);

      // The unit's check can fail: the same unit with `%` written bare is refused or read as another file.
      const bare = join(dir, 'bare.service');
      writeFileSync(bare, text.replace(/%%/g, '%'));
      expect(await verifiedClean(bare, runtime)).not.toBe('clean');
      expect(await resolved(value!.replace(/%%/g, '%'))).toBeNull();

      // With no XDG_CONFIG_HOME the unit goes under $HOME/.config, read as it is too.
      const home = join(dir, `home ${NASTY}`);
      const { XDG_CONFIG_HOME: _, ...rest } = process.env;
      const h = await execa('node', [CLI, 'service', 'install', '--user'], {
        env: { ...rest, HOME: home, XDG_STATE_HOME: state },
        extendEnv: false,
        reject: false,
      });
      expect(h.exitCode, h.stderr).toBe(0);
      const homeUnit = join(home, '.config', 'systemd', 'user', 'baton.service');
      expect(await verifiedClean(homeUnit, runtime)).toBe('clean');
      const [homeEnv] = setting(readFileSync(homeUnit, 'utf8'), 'EnvironmentFile');
      expect(await resolved(homeEnv!)).toBe(join(home, '.config', 'baton', 'env'));
    },
    30_000,
  );

  it.skipIf(!linux)(
    'the node binary and the CLI at such paths: systemd finds the program; a path it cannot take is refused',
    async () => {
      dir = mkdtempSync(join(tmpdir(), 'baton-service-'));
      const runtime = join(dir, 'run');
      mkdirSync(runtime, { mode: 0o700 });
      // systemd refuses quotes and backslashes in a program's path: the node binary's folder has the rest.
      const nodeDir = join(dir, `node 100%h 5%z é $HOME \${X}`);
      mkdirSync(nodeDir);
      const node = join(nodeDir, 'node');
      symlinkSync(process.execPath, node);
      const cli = join(dir, `lib ${NASTY}`, 'cli.js');
      const paths = { unit: join(dir, 'baton.service'), envFile: join(dir, `cfg ${NASTY}`, 'env') };
      const text = systemdUnit({ node, cli, path: '/usr/bin:/bin', stateHome: undefined }, paths);
      writeFileSync(paths.unit, text);
      // verify checks that the program exists: found only if its path was read as written.
      expect(await verifiedClean(paths.unit, runtime)).toBe('clean');
      const [exec] = setting(text, 'ExecStart');
      // The CLI is an argument: `$` is doubled there too (a variable), `%` and the C escapes as in a quoted word.
      const arg = `"${cli.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/%/g, '%%').replace(/\$/g, '$$$$')}"`;
      expect(exec).toBe(`"${node.replace(/%/g, '%%')}" ${arg} daemon --machine --stay`);
      // The check can fail: with `%` bare, `%h` names the home folder's node, which is not there.
      writeFileSync(paths.unit, text.replace(/%%/g, '%'));
      expect(await verifiedClean(paths.unit, runtime)).not.toBe('clean');

      expect(() =>
        systemdUnit({ node: join(dir, 'a"b', 'node'), cli, path: '/bin', stateHome: undefined }, paths),
      ).toThrow(/systemd cannot run a program at this path/);
      expect(() =>
        systemdUnit({ node, cli, path: '/bin', stateHome: undefined }, { ...paths, envFile: join(dir, 'a\nb', 'env') }),
      ).toThrow(/systemd cannot be given this path/);
    },
    30_000,
  );

  it.skipIf(!linux)(
    "the unit: no Documentation= that is not baton's, the PATH each folder once; uninstall disables it before removing it",
    async () => {
      dir = mkdtempSync(join(tmpdir(), 'baton-service-'));
      // A stand-in for systemctl, first on PATH (never the real user manager): it writes down each call and
      // whether the unit was still there then; `fail` makes it fail as it does with no user manager.
      const bin = join(dir, 'bin');
      mkdirSync(bin);
      const calls = join(dir, 'calls');
      const unit = join(dir, 'config', 'systemd', 'user', 'baton.service');
      writeFileSync(
        join(bin, 'systemctl'),
        `#!/bin/sh\necho "$* unit=$([ -e '${unit}' ] && echo yes || echo no)" >> '${calls}'\n[ -e '${join(dir, 'fail')}' ] && { echo 'Failed to connect to bus' >&2; exit 1; }\nexit 0\n`,
        { mode: 0o755 },
      );
      // A PATH as shells grow them: repeats, an empty entry, a relative one.
      const env = {
        XDG_CONFIG_HOME: join(dir, 'config'),
        PATH: `${bin}:/usr/bin:/bin::/usr/bin:./node_modules/.bin:${bin}:${process.env.PATH}`,
      };
      expect((await execa('node', [CLI, 'service', 'install'], { env, reject: false })).exitCode).toBe(0);
      const text = readFileSync(unit, 'utf8');
      expect(text).not.toContain('Documentation=');
      const [path] = setting(text, 'Environment').map((e) => /^"PATH=(.*)"$/.exec(e)?.[1]);
      const dirs = path!.split(':');
      expect(dirs.slice(0, 3)).toEqual([bin, '/usr/bin', '/bin']);
      expect(new Set(dirs).size).toBe(dirs.length);
      expect(dirs.every((d) => d.startsWith('/'))).toBe(true);

      // Enabled (as `systemctl --user enable` links it), and systemd cannot be asked: the unit is kept, exit 1.
      mkdirSync(join(dir, 'config', 'systemd', 'user', 'default.target.wants'));
      symlinkSync(unit, join(dir, 'config', 'systemd', 'user', 'default.target.wants', 'baton.service'));
      writeFileSync(join(dir, 'fail'), '');
      const refused = await execa('node', [CLI, 'service', 'uninstall'], { env, reject: false });
      expect(refused.exitCode).toBe(1);
      expect(refused.stderr).toContain(
        'Run: systemctl --user disable --now baton.service   then: baton service uninstall',
      );
      expect(existsSync(unit)).toBe(true);
      // It once removed the unit first and said to disable it after, when systemd no longer knew what to unlink.
      rmSync(join(dir, 'fail'));
      rmSync(calls);
      const un = await execa('node', [CLI, 'service', 'uninstall'], { env, reject: false });
      expect(un.exitCode, un.stderr).toBe(0);
      expect(existsSync(unit)).toBe(false);
      expect(readFileSync(calls, 'utf8').trim().split('\n')).toEqual([
        '--user disable --now baton.service unit=yes',
        '--user daemon-reload unit=no',
      ]);
    },
    30_000,
  );

  it('refuses anything but install or uninstall', async () => {
    const r = await execa('node', [CLI, 'service', 'start'], { reject: false });
    expect(r.exitCode).toBe(2);
  });
});
