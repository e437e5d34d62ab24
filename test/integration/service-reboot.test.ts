/**
 * A reboot with `baton service` installed, as far as this machine allows (it has no systemd user manager):
 * everything is killed — the machine's daemon with -9, every tmux server — then the unit's own ExecStart runs
 * with only the environment the unit gives it (Environment=, EnvironmentFile=), as systemd's user manager
 * would start it at boot. The daemon serves every registered conversation with no tmux server running; a
 * message written while the agents' panes do not exist waits in its inbox and is typed once, unflagged, when
 * the person's `baton up` brings the panes back; nothing typed before the reboot is typed again.
 */
import { type ResultPromise, execa } from 'execa';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { alive, CLI, type Project, readRecorder, waitFor } from '../helpers/harness.js';
import { machinePid, recorderConversation, typedIn } from '../helpers/machine-fleet.js';

const made: Project[] = [];
const started: ResultPromise[] = [];
afterEach(async () => {
  for (const d of started.splice(0)) {
    d.kill('SIGTERM');
    await d.catch(() => {});
  }
  for (const p of made.splice(0)) await p.stop();
});

const conversation = (tag: string, state?: Project) => recorderConversation(tag, made, state);

/** systemd's unquoting of one ExecStart/Environment word as service-unit.ts writes it (`$$`: a command's argument). */
const unquote = (w: string, arg = false) => {
  const s = w.slice(1, -1).replace(/%%/g, '%').replace(/\\"/g, '"').replace(/\\\\/g, '\\');
  return arg ? s.replace(/\$\$/g, '$') : s;
};

/** The service's command and environment, read from the unit the way systemd reads them. */
function unitLaunch(unit: string): { argv: string[]; env: Record<string, string> } {
  const text = readFileSync(unit, 'utf8');
  const exec = /^ExecStart=(.*)$/m.exec(text)![1]!;
  const argv = (exec.match(/"(?:[^"\\]|\\.)*"|\S+/g) ?? []).map((w, i) => (w.startsWith('"') ? unquote(w, i > 0) : w));
  const env: Record<string, string> = {};
  for (const m of text.matchAll(/^Environment=(.*)$/gm)) {
    const [k, ...v] = unquote(m[1]!).split('=');
    env[k!] = v.join('=');
  }
  const file = /^EnvironmentFile=(.*)$/m.exec(text)![1]!.replace(/%%/g, '%');
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const kv = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (kv) env[kv[1]!] = kv[2]!;
  }
  return { argv, env };
}

describe('a reboot with the service installed', () => {
  it.skipIf(process.platform !== 'linux')(
    'brings back one daemon serving every conversation; panes come back with up; nothing lost or doubled',
    async () => {
      const a = await conversation('ra');
      const b = await conversation('rb', a.p);
      expect((await a.p.cli(['up'])).exitCode).toBe(0);
      expect((await b.p.cli(['up'])).exitCode).toBe(0);
      a.p.send('c1_to_c2', 'a1.json', { content: 'before the reboot' });
      await waitFor('typed before the reboot', () => typedIn(a.logs.claude2, 'before the reboot'));

      const config = join(a.p.dir, 'xdg-config');
      const env = { ...a.p.env, XDG_CONFIG_HOME: config };
      const inst = await execa('node', [CLI, 'service', 'install', '--user'], { env, reject: false, cwd: tmpdir() });
      expect(inst.exitCode, inst.stderr).toBe(0);
      const launch = unitLaunch(join(config, 'systemd', 'user', 'baton.service'));
      expect(launch.argv.slice(-3)).toEqual(['daemon', '--machine', '--stay']);

      // The reboot: the daemon dies with -9, every tmux server with it.
      const pid = machinePid(a.p);
      process.kill(pid, 'SIGKILL');
      await a.p.killServer();
      await b.p.killServer();
      await waitFor('daemon gone', () => !alive(pid));

      // Boot: systemd starts the unit's command with the unit's environment (plus HOME and the runtime dir).
      const daemon = execa(launch.argv[0]!, launch.argv.slice(1), {
        env: { ...launch.env, HOME: a.p.dir, XDG_RUNTIME_DIR: join(a.p.dir, 'run') },
        extendEnv: false,
        cwd: '/',
        reject: false,
      });
      started.push(daemon);
      const ls = async () => {
        const r = await execa('node', [CLI, 'ls', '--json'], { env: a.p.env, cwd: tmpdir(), reject: false });
        return JSON.parse(r.stdout) as {
          daemon: { pid: number } | null;
          conversations: Array<{ folder: string; run: string; skipped: string | null }>;
        };
      };
      await waitFor(
        'the service daemon serves both',
        async () => {
          const l = await ls();
          return l.daemon?.pid === daemon.pid && l.conversations.filter((c) => c.skipped === null).length === 2;
        },
        20_000,
      );
      expect((await ls()).conversations.map((c) => c.folder).sort()).toEqual([a.p.dir, b.p.dir].sort());

      // Written after boot, before anyone brought the agents back: it waits in its inbox.
      b.p.send('c1_to_c2', 'b1.json', { content: 'after the reboot' });
      await new Promise((r) => setTimeout(r, 1500));
      expect(b.p.ls('c1_to_c2')).toEqual(['b1.json']);
      expect(b.p.archive()).toEqual([]);

      // The person brings the panes back and runs `up`: the message is typed once, unflagged.
      const bLogs = await b.panes();
      const aLogs = await a.panes();
      const upB = await b.p.cli(['up']);
      expect(upB.exitCode, upB.stderr + upB.stdout).toBe(0);
      expect((await a.p.cli(['up'])).exitCode).toBe(0);
      // On a timeout the error itself carries what the daemon saw and what the pane read (CI shows a failure's
      // message, not what the test printed): a message typed while the recorder was still starting shows as stray.
      await waitFor('typed after the panes came back', () => typedIn(bLogs.claude2, 'after the reboot'), 20_000).catch(
        async (e: Error) => {
          const events = readFileSync(join(b.p.messages, 'events.jsonl'), 'utf8').split('\n').slice(-25).join('\n');
          const { typed, stray } = readRecorder(bLogs.claude2);
          const read = `claude2 read: typed ${JSON.stringify(typed)}, stray ${JSON.stringify(stray)}`;
          throw new Error(`${e.message}\n${(await b.p.cli(['status'])).stdout}\n${events}\n${read}`);
        },
      );
      expect(machinePid(a.p)).toBe(daemon.pid);
      a.p.send('c2_to_c1', 'a2.json', { content: 'A after the reboot' });
      await waitFor('A flows again', () => typedIn(aLogs.claude1, 'A after the reboot'));
      await new Promise((r) => setTimeout(r, 1000));
      expect(typedIn(bLogs.claude2, 'after the reboot')).toBe(1);
      expect(b.p.archive().map((m) => [m.content, Boolean(m.redelivered)])).toEqual([['after the reboot', false]]);
      // Typed and stamped before the reboot: never typed again (the recorder's log runs on across the reboot).
      expect(typedIn(aLogs.claude2, 'before the reboot')).toBe(1);
      expect(a.p.archive().map((m) => m.content)).toEqual(['before the reboot', 'A after the reboot']);
    },
    120_000,
  );
});
