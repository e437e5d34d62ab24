/**
 * A project moved away (or removed) under the machine's daemon is never made again (bus/anchor.ts): it
 * used to lose its lock with the folder, take the lease again with `mkdir -p`, and start a fresh
 * conversation (counter 0) in a new folder at the old path, typing a message written there into the moved
 * project's pane — which then read `msg_0001` twice with different content. Now the daemon skips it and
 * says why (log, `ls`, `status` in the moved folder), the other conversations flow, and `baton up` in the
 * moved folder brings it back where it is now.
 */
import { execa } from 'execa';
import { existsSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, Project, readRecorder, waitFor, writeMessage } from '../helpers/harness.js';
import { machinePid, recorderConversation, typedIn } from '../helpers/machine-fleet.js';

const made: Project[] = [];
const moved: string[] = [];
afterEach(async () => {
  for (const p of made.splice(0)) await p.stop();
  for (const d of moved.splice(0)) rmSync(d, { recursive: true, force: true });
});

type Status = { daemon: { running: boolean; pid: number | null }; skipped: { pid: number; problem: string } | null };

async function ls(p: Project) {
  const r = await execa('node', [CLI, 'ls', '--json'], { env: p.env, cwd: tmpdir(), reject: false });
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as { conversations: Array<{ folder: string; run: string; skipped: string | null }> };
}

/**
 * A conversation whose tmux server and machine registry are `keeper`'s (outside its own folder, which
 * moves): two recorder panes `<tag>-c1`/`<tag>-c2`, their logs in the keeper's folder.
 */
async function movable(tag: string, keeper: Project) {
  const agents = Object.fromEntries(
    (['claude1', 'claude2'] as const).map((a, i) => [a, { kind: 'generic', target: `${tag}-c${i + 1}:0.0` }]),
  );
  const p = new Project({ agents, delivery: { enter_delay_ms: 0 } });
  made.push(p);
  p.env.XDG_STATE_HOME = keeper.env.XDG_STATE_HOME!;
  p.env.TMUX_TMPDIR = keeper.env.TMUX_TMPDIR!;
  const log = (n: string) => join(keeper.dir, `${tag}-${n}.log`);
  await keeper.recorder(`${tag}-c1`, { as: 'claude1', config: p.configFile });
  await keeper.recorder(`${tag}-c2`, { as: 'claude2', config: p.configFile });
  return { p, logs: { claude1: log('c1'), claude2: log('c2') } };
}

/** `baton ARGS --config FILE` as a person runs it in `dir`, with `p`'s environment. */
const cli = (p: Project, dir: string, args: string[]) =>
  execa('node', [CLI, ...args, '--config', join(dir, 'config.json')], { env: p.env, cwd: dir, reject: false });

describe('a project moved away under the machine daemon', () => {
  it('is skipped and said, never made again; the others flow; up in its new place brings it back', async () => {
    const a = await recorderConversation('ma', made);
    const b = await movable('mb', a.p);
    expect((await a.p.cli(['up'])).exitCode).toBe(0);
    expect((await b.p.cli(['up'])).exitCode).toBe(0);
    const pid = machinePid(a.p);
    b.p.send('c1_to_c2', 'b1.json', { content: 'B before the move' });
    await waitFor('B delivered', () => typedIn(b.logs.claude2, 'B before the move'));
    await waitFor('B stamped delivered', () => b.p.archive()[0]?.delivered_at); // else typed again, flagged

    const to = `${b.p.dir}-moved`;
    moved.push(to);
    renameSync(b.p.dir, to);
    const rowB = async () => (await ls(a.p)).conversations.find((c) => c.folder === b.p.dir);
    await waitFor('B reported skipped', async () => Boolean((await rowB())?.skipped), 20_000);
    expect((await rowB())?.skipped).toMatch(/is gone \(moved away or removed\).*"baton up" there/);
    // A flows — two messages, seconds of the daemon's rescans and lock refreshes — and B's old place stays empty.
    a.p.send('c1_to_c2', 'a1.json', { content: 'A after B moved' });
    await waitFor('A delivered', () => typedIn(a.logs.claude2, 'A after B moved'));
    a.p.send('c2_to_c1', 'a2.json', { content: 'A answers' });
    await waitFor('A answered', () => typedIn(a.logs.claude1, 'A answers'));
    expect(existsSync(b.p.dir)).toBe(false);

    // status in the moved folder: not served (once the lock that moved with it went stale), and why.
    const statusB = async () => JSON.parse((await cli(b.p, to, ['status', '--json'])).stdout) as Status;
    const s = await waitFor('the moved lock stale', async () => {
      const now = await statusB();
      return now.daemon.running ? null : now;
    });
    expect(s.skipped).toEqual({ pid, problem: expect.stringMatching(/is gone \(moved away or removed\)/) });

    // A message written in the moved project waits; `up` there serves it from where it is now, typed once.
    writeMessage(join(to, 'messages', 'c2_to_c1'), 'b2.json', { content: 'B after the move' });
    const up = await cli(b.p, to, ['up']);
    expect(up.exitCode, up.stdout + up.stderr).toBe(0);
    await waitFor('B delivered from its new place', () => typedIn(b.logs.claude1, 'B after the move'));
    // Its old place left the list: the same message folder, moved (the registry knows it by its inode).
    expect((await ls(a.p)).conversations.map((c) => [c.folder, c.run])).toEqual([
      [a.p.dir, 'running'],
      [to, 'running'],
    ]);
    // Each ID typed once: the conversation went on (msg_0002), none began again at 0 (a second msg_0001).
    const headers = [b.logs.claude1, b.logs.claude2].flatMap((l) => readRecorder(l).typed.map((t) => t.split('\n')[0]));
    expect(headers.sort()).toEqual([
      '[baton] msg_0001 from claude1',
      '[baton] msg_0002 from claude2 (reply to msg_0001)',
    ]);
    expect(existsSync(b.p.dir)).toBe(false);
  }, 120_000);

  it('a project removed is skipped and listed so, never made again; down by its old path takes it off', async () => {
    const a = await recorderConversation('ra', made);
    const c = await movable('rc', a.p);
    expect((await a.p.cli(['up'])).exitCode).toBe(0);
    expect((await c.p.cli(['up'])).exitCode).toBe(0);
    await waitFor('C served', async () => (await ls(a.p)).conversations.every((r) => r.run === 'running'));

    rmSync(c.p.dir, { recursive: true, force: true });
    const rowC = async () => (await ls(a.p)).conversations.find((r) => r.folder === c.p.dir);
    await waitFor('C reported skipped', async () => Boolean((await rowC())?.skipped), 20_000);
    expect((await rowC())?.skipped).toMatch(/is gone \(moved away or removed\)/);
    a.p.send('c1_to_c2', 'a1.json', { content: 'A after C went' });
    await waitFor('A delivered', () => typedIn(a.logs.claude2, 'A after C went'));
    a.p.send('c2_to_c1', 'a2.json', { content: 'A answers' });
    await waitFor('A answered', () => typedIn(a.logs.claude1, 'A answers'));
    expect(existsSync(c.p.dir)).toBe(false);

    // Taken off the list by its config's path, which no longer exists (nor its run record beside it).
    const down = await execa('node', [CLI, 'down', '--config', c.p.configFile], {
      env: c.p.env,
      cwd: tmpdir(),
      reject: false,
    });
    expect(down.exitCode, down.stdout + down.stderr).toBe(0);
    expect(down.stdout + down.stderr).toMatch(
      /stopped its place in the machine's daemon \(pid \d+\); it still serves 1 other/,
    );
    expect((await ls(a.p)).conversations.map((r) => r.folder)).toEqual([a.p.dir]);
    expect(existsSync(c.p.dir)).toBe(false);
  }, 120_000);
});
