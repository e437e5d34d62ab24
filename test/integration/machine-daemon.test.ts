/**
 * One daemon per machine (app/machine/): two projects' `baton up` share it, `baton ls` lists both from any
 * folder, `baton down` in one leaves the other served, and after `kill -9` one `up` brings back a daemon
 * serving both, with nothing lost. The two projects run on two tmux servers: the daemon types into each
 * conversation's own server (the one its `up` recorded).
 */
import { execa } from 'execa';
import { existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { alive, CLI, type Project, waitFor } from '../helpers/harness.js';
import { machinePid, recorderConversation, typedIn } from '../helpers/machine-fleet.js';

const made: Project[] = [];
afterEach(async () => {
  for (const p of made.splice(0)) await p.stop();
});

const conversation = (tag: string, state?: Project) => recorderConversation(tag, made, state);

const statusOf = async (p: Project) =>
  JSON.parse((await p.cli(['status', '--json'])).stdout) as { daemon: { running: boolean; pid: number | null } };

async function ls(p: Project) {
  const r = await execa('node', [CLI, 'ls', '--json'], { env: p.env, cwd: tmpdir(), reject: false });
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as {
    daemon: { pid: number } | null;
    conversations: Array<{ folder: string; run: string; skipped: string | null }>;
  };
}

describe("the machine's daemon", () => {
  it('is shared by two projects, listed by ls, left by down, and brought back after kill -9', async () => {
    const a = await conversation('pa');
    const b = await conversation('pb', a.p);

    const upA = await a.p.cli(['up']);
    expect(upA.exitCode, upA.stderr + upA.stdout).toBe(0);
    expect(upA.stdout + upA.stderr).toMatch(/the machine's daemon started in session baton-daemon/);
    const upB = await b.p.cli(['up']);
    expect(upB.exitCode, upB.stderr + upB.stdout).toBe(0);
    const pid = machinePid(a.p);
    await waitFor('both served by one daemon', async () => (await statusOf(b.p)).daemon.pid === pid);
    expect((await statusOf(a.p)).daemon.pid).toBe(pid);
    // The daemon runs on the first project's tmux server only.
    expect((await a.p.tmux(['has-session', '-t', '=baton-daemon'])).exitCode).toBe(0);
    expect((await b.p.tmux(['has-session', '-t', '=baton-daemon'])).exitCode).not.toBe(0);

    // ls, from a folder that is neither project's.
    const listed = await ls(a.p);
    expect(listed.daemon?.pid).toBe(pid);
    expect(listed.conversations.map((c) => [c.folder, c.run])).toEqual([
      [a.p.dir, 'running'],
      [b.p.dir, 'running'],
    ]);

    a.p.send('c1_to_c2', 'a1.json', { content: 'first in A' });
    b.p.send('c1_to_c2', 'b1.json', { content: 'first in B' });
    await waitFor(
      'each typed into its own server',
      () => typedIn(a.logs.claude2, 'first in A') && typedIn(b.logs.claude2, 'first in B'),
    );

    // down in B: B's place in the daemon ends, A is still served by the same process.
    const downB = await b.p.cli(['down']);
    expect(downB.exitCode, downB.stderr).toBe(0);
    // It says what became of the daemon: it serves A on (it once said only "its place in the machine's daemon").
    expect(downB.stdout + downB.stderr).toContain(
      `its place in the machine's daemon (pid ${pid}); it still serves 1 other conversation`,
    );
    expect((await statusOf(b.p)).daemon.running).toBe(false);
    expect(alive(pid)).toBe(true);
    a.p.send('c2_to_c1', 'a2.json', { content: 'second in A' });
    await waitFor('A still delivered', () => typedIn(a.logs.claude1, 'second in A'));
    expect((await ls(a.p)).conversations.map((c) => c.folder)).toEqual([a.p.dir]);

    // B comes back without a restart of the daemon.
    const again = await b.p.cli(['up']);
    expect(again.exitCode, again.stderr).toBe(0);
    await waitFor('B served again', async () => (await statusOf(b.p)).daemon.pid === pid);

    // kill -9: a message written meanwhile, then one `up` (in A) brings back one daemon serving both.
    process.kill(pid, 'SIGKILL');
    await waitFor('daemon gone', () => !alive(pid));
    b.p.send('c2_to_c1', 'b2.json', { content: 'written while no daemon ran' });
    const back = await a.p.cli(['up']);
    expect(back.exitCode, back.stderr + back.stdout).toBe(0);
    const pid2 = machinePid(a.p);
    expect(pid2).not.toBe(pid);
    await waitFor('both served by the new daemon', async () => (await statusOf(b.p)).daemon.pid === pid2, 20_000);
    expect((await statusOf(a.p)).daemon.pid).toBe(pid2);
    await waitFor('the message written meanwhile delivered', () =>
      typedIn(b.logs.claude1, 'written while no daemon ran'),
    );
    a.p.send('c1_to_c2', 'a3.json', { content: 'third in A' });
    await waitFor('A delivered after the crash', () => typedIn(a.logs.claude2, 'third in A'));
    await new Promise((r) => setTimeout(r, 1000));
    // Nothing lost, nothing typed twice: never typed before the crash, so once and unflagged (docs/protocol.md §6).
    expect(typedIn(b.logs.claude1, 'written while no daemon ran')).toBe(1);
    const rec = b.p.archive().find((m) => m.content === 'written while no daemon ran');
    expect(rec?.delivered_at).toBeTruthy();
    expect(rec?.redelivered).toBeFalsy();
    expect(b.p.archive().map((m) => m.content)).toEqual(['first in B', 'written while no daemon ran']);
    expect(a.p.archive().map((m) => m.content)).toEqual(['first in A', 'second in A', 'third in A']);
    expect((await ls(a.p)).conversations).toHaveLength(2);
  }, 120_000);

  it('exits when it serves nothing more, and up --fresh in one project never touches another', async () => {
    const a = await conversation('qa');
    const b = await conversation('qb', a.p);
    expect((await a.p.cli(['up'])).exitCode).toBe(0);
    expect((await b.p.cli(['up'])).exitCode).toBe(0);
    const pid = machinePid(a.p);
    a.p.send('c1_to_c2', 'a1.json', { content: 'kept in A' });
    await waitFor('A delivered', () => a.p.archive()[0]?.delivered_at);
    const fresh = await b.p.cli(['up', '--fresh']);
    expect(fresh.exitCode, fresh.stderr).toBe(0);
    await waitFor('B served again', async () => (await statusOf(b.p)).daemon.pid === pid);
    expect((await statusOf(a.p)).daemon.pid).toBe(pid);
    expect(a.p.archive().map((m) => m.content)).toEqual(['kept in A']);

    expect((await a.p.cli(['down'])).exitCode).toBe(0);
    expect(alive(pid)).toBe(true);
    const last = await b.p.cli(['down']);
    expect(last.exitCode).toBe(0);
    expect(last.stdout + last.stderr).toContain(
      `its place in the machine's daemon (pid ${pid}); it had nothing else to serve and exited`,
    );
    await waitFor('the daemon exited', () => !alive(pid), 5000);
    expect((await ls(a.p)).daemon).toBeNull();
  }, 90_000);

  it('skips and reports a conversation whose config broke; the others flow; down with that config leaves', async () => {
    const a = await conversation('ra');
    const b = await conversation('rb', a.p);
    expect((await a.p.cli(['up'])).exitCode).toBe(0);
    expect((await b.p.cli(['up'])).exitCode).toBe(0);
    const pid = machinePid(a.p);
    await waitFor('both served', async () => (await statusOf(b.p)).daemon.pid === pid);

    // B's config breaks, then the daemon dies: the one `up` in A brings back serves A and reports B skipped.
    writeFileSync(b.p.configFile, '{ "agents": ');
    process.kill(pid, 'SIGKILL');
    await waitFor('daemon gone', () => !alive(pid));
    const back = await a.p.cli(['up']);
    expect(back.exitCode, back.stderr + back.stdout).toBe(0);
    const pid2 = machinePid(a.p);
    await waitFor('B reported skipped', async () => {
      const row = (await ls(a.p)).conversations.find((c) => c.folder === b.p.dir);
      return /invalid config.*not valid JSON/.test(row?.skipped ?? '');
    });
    const lsText = await execa('node', [CLI, 'ls'], { env: a.p.env, cwd: tmpdir(), reject: false });
    expect(lsText.stdout).toMatch(/skipped: /);
    a.p.send('c1_to_c2', 'a1.json', { content: 'A flows beside a broken B' });
    await waitFor('A delivered', () => typedIn(a.logs.claude2, 'A flows beside a broken B'));

    // `down` in B, its config still broken: B leaves the registry, the daemon and A go on.
    const downB = await b.p.cli(['down']);
    expect(downB.exitCode, downB.stderr + downB.stdout).toBe(0);
    expect((await ls(a.p)).conversations.map((c) => c.folder)).toEqual([a.p.dir]);
    expect(alive(pid2)).toBe(true);
    a.p.send('c2_to_c1', 'a2.json', { content: 'A after B left' });
    await waitFor('A still delivered', () => typedIn(a.logs.claude1, 'A after B left'));
  }, 120_000);

  it('down with a broken config lets the daemon go of a conversation it serves, not the daemon', async () => {
    const a = await conversation('sa');
    const b = await conversation('sb', a.p);
    expect((await a.p.cli(['up'])).exitCode).toBe(0);
    expect((await b.p.cli(['up'])).exitCode).toBe(0);
    const pid = machinePid(a.p);
    await waitFor('both served', async () => (await statusOf(b.p)).daemon.pid === pid);
    // A's config breaks while it is served: the daemon runs its last good config; `down` finds it by its record.
    writeFileSync(a.p.configFile, '{ "agents": ');
    const downA = await a.p.cli(['down']);
    expect(downA.exitCode, downA.stderr + downA.stdout).toBe(0);
    expect(downA.stdout + downA.stderr).toMatch(
      /its place in the machine's daemon \(pid \d+\); it still serves 1 other conversation/,
    );
    expect(alive(pid)).toBe(true);
    expect((await ls(b.p)).conversations.map((c) => c.folder)).toEqual([b.p.dir]);
    // `down` waited for the daemon to let go: A's lease is released already.
    expect(existsSync(join(a.p.dir, 'messages', 'daemon.lock'))).toBe(false);
    b.p.send('c1_to_c2', 'b1.json', { content: 'B after A left' });
    await waitFor('B delivered', () => typedIn(b.logs.claude2, 'B after A left'));
  }, 90_000);
});
