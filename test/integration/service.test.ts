/**
 * `baton service install` writes a systemd user unit that systemd itself accepts (`systemd-analyze verify`),
 * into $XDG_CONFIG_HOME — a temp folder here, never the real ~/.config — with the database's settings in an
 * environment file of mode 0600 and never in the unit; `uninstall` removes the unit.
 */
import { execa } from 'execa';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
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
      expect(text).toContain(`EnvironmentFile=-${join(dir, 'config', 'baton', 'env')}`);
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

  it('refuses anything but install or uninstall', async () => {
    const r = await execa('node', [CLI, 'service', 'start'], { reject: false });
    expect(r.exitCode).toBe(2);
  });
});
