/**
 * A reboot with `baton service install --agents` (docs/protocol.md §12): the machine's daemon, started as the
 * unit starts it, brings back the agents of a conversation that was running — its client resuming the session
 * the conversation kept — and leaves a finished one down. Before it does, `baton ls` says which conversation
 * waits for `baton up` and whose pane is missing.
 */
import { type ResultPromise, execa } from 'execa';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { alive, CLI, Project, ROOT, waitFor } from '../helpers/harness.js';
import { machinePid } from '../helpers/machine-fleet.js';

const FAKE_CLAUDE = join(ROOT, 'test', 'fixtures', 'fake-claude.mjs');
const ID = '662dd966-c06b-4056-9cde-094d262dfa46';

const made: Project[] = [];
const started: ResultPromise[] = [];
afterEach(async () => {
  for (const d of started.splice(0)) {
    d.kill('SIGTERM');
    await d.catch(() => {});
  }
  for (const p of made.splice(0)) await p.stop();
});

/** A conversation of one stand-in Claude Code (a program named `claude`, so baton adds its resume) whose session is kept. */
function conversation(
  tag: string,
  state: Record<string, unknown>,
  share?: Project,
): { p: Project; argv: () => string[][] } {
  const p = new Project();
  // One machine: the same registry and the same tmux server.
  if (share) Object.assign(p.env, { XDG_STATE_HOME: share.env.XDG_STATE_HOME, TMUX_TMPDIR: share.env.TMUX_TMPDIR });
  made.push(p);
  const bin = join(p.dir, 'bin');
  mkdirSync(bin, { recursive: true });
  const argv = join(p.dir, 'claude.argv');
  writeFileSync(
    join(bin, 'claude'),
    `#!/bin/sh\nexec node ${JSON.stringify(FAKE_CLAUDE)} ${JSON.stringify(join(p.dir, 'claude.log'))} --argv ${JSON.stringify(argv)} "$@"\n`,
    { mode: 0o755 },
  );
  const cwd = join(p.dir, 'agents', 'c');
  mkdirSync(cwd, { recursive: true });
  p.writeConfig({
    message_dir: './messages',
    agents: {
      c: { kind: 'claude', command: join(bin, 'claude'), session: `${tag}-c` },
      d: { kind: 'generic', command: 'cat', session: `${tag}-d` },
    },
  });
  mkdirSync(p.messages, { recursive: true });
  writeFileSync(
    p.path('state.json'),
    JSON.stringify({
      current_turn: 'c',
      last_message_id: null,
      message_counter: 0,
      pending_reply_to: null,
      sessions: { c: { id: ID, kind: 'claude', cwd, at: 'T' } },
      ...state,
    }),
  );
  const lines = () =>
    existsSync(argv)
      ? readFileSync(argv, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as string[])
      : [];
  return { p, argv: lines };
}

it('service --agents brings back a running conversation resuming its sessions; ls says which wait', async () => {
  const running = conversation('run', {});
  const done = conversation('done', { finished: { reason: 'ended', at: 'T' } }, running.p);
  const env = running.p.env;
  for (const c of [running, done]) {
    const up = await c.p.cli(['up'], { env: { BATON_RESUME_WAIT_MS: '3000' } });
    expect(up.exitCode, up.stdout + up.stderr).toBe(0);
  }
  expect(running.argv()).toHaveLength(1);

  // The reboot: the machine's daemon dies with -9, every tmux server with it.
  const pid = machinePid(running.p);
  process.kill(pid, 'SIGKILL');
  await running.p.killServer();
  await done.p.killServer();
  await waitFor('daemon gone', () => !alive(pid));

  const ls = async () => (await execa('node', [CLI, 'ls'], { env, cwd: tmpdir(), reject: false })).stdout;
  const before = await ls();
  const row = (text: string, dir: string) => text.split('\n').find((l) => l.startsWith(dir)) ?? '';
  expect(row(before, running.p.dir)).toContain('waits for "baton up" (no pane: c, d)');
  expect(row(before, done.p.dir)).not.toContain('waits for');
  expect(before).toContain('"baton service install --agents" does it at boot');

  // Boot: the unit's command with --agents.
  const daemon = execa('node', [CLI, 'daemon', '--machine', '--stay', '--agents'], {
    env: { ...env, BATON_RESUME_WAIT_MS: '3000' },
    cwd: '/',
    reject: false,
    all: true,
  });
  started.push(daemon);
  await waitFor('c brought back, resuming its session', () => running.argv().length === 2, 30_000).catch((e) => {
    console.log(daemon.all);
    throw e;
  });
  expect(running.argv()[1]!.slice(-2)).toEqual(['--resume', ID]);
  await waitFor('ls no longer says it waits', async () => !row(await ls(), running.p.dir).includes('waits for'));
  // The finished one stays down.
  expect(done.argv()).toHaveLength(1);
  expect(row(await ls(), done.p.dir)).not.toContain('waits for');
}, 120_000);
