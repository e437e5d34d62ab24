/**
 * Across machines over PostgreSQL (docs/protocol.md §10), with a real server this file starts and stops.
 * A "machine" is its own project folder, tmux server and daemon with its own BATON_HOST (helpers/machines.ts).
 */
import { execa } from 'execa';
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { CLI, readRecorder, waitFor } from '../helpers/harness.js';
import { archived, machinesConfig, query, useMachines } from '../helpers/machines.js';
import { usePostgres } from '../helpers/postgres.js';
import { startUi } from '../helpers/ui.js';

const server = usePostgres();
const machine = useMachines();
let n = 0;
const conversation = () => `machines-${process.pid}-${n++}`;

describe('the PostgreSQL bus across machines', () => {
  it('two machines hold one conversation: a file on one is typed into the pane on the other, and the replies go back', async () => {
    const conv = conversation();
    const config = machinesConfig(server.url, conv, { turns: { max_turns: 6 } });
    const [a, b] = [machine('alpha', config), machine('beta', config)];
    const logA = await a.recorder('claude1', { reply: true });
    const logB = await b.recorder('claude2', { reply: true });
    await a.daemon();
    await b.daemon();
    // claude1 writes a file, as its instructions say: alpha's daemon relays it, beta's types it.
    a.send('c1_to_c2', 'opening.json', { content: 'hello from alpha' });
    await waitFor(
      '6 messages delivered',
      async () => (await archived(server.url, conv)).filter((r) => r.delivered_at).length >= 6,
      60_000,
    );
    const records = await archived(server.url, conv);
    expect(records.map((r) => r.id)).toEqual(['msg_0001', 'msg_0002', 'msg_0003', 'msg_0004', 'msg_0005', 'msg_0006']);
    expect(records.map((r) => r.receiver)).toEqual(['claude2', 'claude1', 'claude2', 'claude1', 'claude2', 'claude1']);
    expect(records[0]).toMatchObject({ content: 'hello from alpha', reply_to: null, sender: 'claude1' });
    expect(records[1]).toMatchObject({ content: 'reply to msg_0001', reply_to: 'msg_0001' });
    expect(a.ls('c1_to_c2')).toEqual(['.relaying']); // the file went into the database
    // Each machine typed only into its own pane, each message once (a pane reads its bytes a moment after the stamp).
    await waitFor(
      'every pane read its messages',
      () =>
        records.every((r) =>
          readRecorder(r.receiver === 'claude1' ? logA : logB).pastes.some((t) => t.startsWith(`[baton] ${r.id} from`)),
        ),
      30_000,
    ).catch(() => {});
    const typedA = readRecorder(logA).pastes.join('\n');
    const typedB = readRecorder(logB).pastes.join('\n');
    for (const r of records) {
      const [mine, other] = r.receiver === 'claude1' ? [typedA, typedB] : [typedB, typedA];
      expect(mine.split(`[baton] ${r.id} from`).length - 1, r.id).toBe(1);
      expect(other).not.toContain(`[baton] ${r.id} from`);
    }
    // status from either machine: the bus, both hosts alive; max_turns ended it and both panes were told.
    const s = (await b.status())!;
    expect(s.bus.kind).toBe('postgres');
    expect(s.hosts.alpha?.alive).toBe(true);
    expect(s.hosts.beta?.alive).toBe(true);
    await waitFor('finished', async () => (await a.status())?.finished);
    // alpha delivered the last message and ended it; beta's pane is told by beta's daemon.
    await waitFor(
      "beta's pane told it finished",
      () => readRecorder(logB).typed.some((t) => t.includes('the conversation has finished')),
      15_000,
    );
    // resume from beta: both panes hear that it continues, each from its own machine's daemon.
    const resumed = await b.cli(['resume']);
    expect(resumed.exitCode, resumed.stderr + resumed.stdout).toBe(0);
    for (const log of [logA, logB])
      await waitFor('told it continues', () => readRecorder(log).typed.some((t) => /continues/.test(t)), 15_000);
    // baton log reads the database, from either machine.
    const log = await b.cli(['log', '--json']);
    expect(log.exitCode, log.stderr).toBe(0);
    expect(log.stdout).toContain('hello from alpha');
    // So does the dashboard: the transcript and both machines, from beta.
    const ui = await startUi(b);
    try {
      const snap = (await (await fetch(`${ui.url}api/snapshot`)).json()) as {
        status: { hosts: Record<string, { alive: boolean; since: string | null }> };
      };
      expect(Object.keys(snap.status.hosts).sort()).toEqual(['alpha', 'beta']);
      for (const h of ['alpha', 'beta'])
        expect(snap.status.hosts[h], h).toMatchObject({ alive: true, since: expect.any(String) });
      const page = JSON.stringify(await (await fetch(`${ui.url}api/messages`)).json());
      for (const r of records) expect(page).toContain(r.id);
    } finally {
      await ui.stop();
    }
  }, 120_000);

  it('a second daemon claiming the same BATON_HOST is refused naming the holder (exit 3)', async () => {
    const config = machinesConfig(server.url, conversation());
    const a = machine('alpha', config);
    const started = Date.now();
    const d = await a.daemon();
    const other = machine('alpha', config); // another machine that says it is alpha
    const r = await execa('node', [CLI, 'daemon', '--config', other.configFile], {
      env: other.env,
      reject: false,
      cwd: other.dir,
    });
    expect(r.exitCode).toBe(3);
    expect(r.stderr + r.stdout).toMatch(
      /another baton daemon \(pid \d+ on .*\) holds conversation "machines-.*" on host "alpha"/,
    );
    // status says since when each machine is as it is: alive since its daemon took the lease …
    const alive = (await other.status())!.hosts.alpha!;
    expect(alive.alive).toBe(true);
    expect(Date.parse(alive.since!)).toBeGreaterThanOrEqual(started - 1000);
    // A heartbeat later: the heartbeat moved, the time it came alive did not.
    let later = alive;
    await waitFor(
      'the next heartbeat',
      async () => (later = (await other.status())!.hosts.alpha!).last_heartbeat !== alive.last_heartbeat,
    );
    expect(later.since).toBe(alive.since);
    expect(Date.parse(later.last_heartbeat!)).toBeGreaterThan(Date.parse(alive.since!));
    // … and, once its daemon is gone, not alive since its last heartbeat.
    d.proc.kill('SIGKILL');
    await waitFor(
      'alpha seen without its daemon',
      async () => (await other.status())?.hosts.alpha?.alive === false,
      30_000,
    );
    const gone = (await other.status())!.hosts.alpha!;
    expect(gone.since).toBe(gone.last_heartbeat);
    expect(Date.parse(gone.since!)).toBeGreaterThanOrEqual(Date.parse(alive.since!));
    expect(Date.parse(gone.since!)).toBeGreaterThanOrEqual(Date.parse(later.last_heartbeat!));
    expect((await other.cli(['status'])).stdout).toMatch(/alpha\s+no daemon since \S+ \(\d+ s ago\)/);
  }, 60_000);

  // A cloned VM or container: the same BATON_HOST and hostname, its own PID namespace (unshare needs root;
  // CI runs the tests as root). Nothing local can tell the two apart: only the holder's heartbeat can.
  it.skipIf(process.getuid?.() !== 0)(
    'a clone of a machine (same name and hostname, another PID namespace) exits 3 naming the holder, which goes on',
    async () => {
      const conv = conversation();
      const config = machinesConfig(server.url, conv);
      const [a, b] = [machine('alpha', config), machine('beta', config)];
      const logs = {
        claude1: await a.recorder('claude1', { reply: true }),
        claude2: await b.recorder('claude2', { reply: true }),
      };
      const holder = await a.daemon();
      await b.daemon();
      a.send('c1_to_c2', 'opening.json', { content: 'ping' });
      const delivered = async () => (await archived(server.url, conv)).filter((r) => r.delivered_at).length;
      await waitFor('4 delivered', async () => (await delivered()) >= 4, 60_000);
      const lease = async () =>
        (
          await query<{ generation: string; holder: { pid: number } }>(
            server.url,
            "SELECT generation, holder FROM baton.leases WHERE conversation = $1 AND host = 'alpha'",
            [conv],
          )
        )[0]!;
      const before = await lease();
      // The clone: its own folder, tmux server and pane for claude1 (where it would type if it won).
      const clone = machine('alpha', config);
      const cloneLog = await clone.recorder('claude1');
      const r = await execa(
        'unshare',
        ['--pid', '--fork', '--mount-proc', '--kill-child', 'node', CLI, 'daemon', '--config', clone.configFile],
        { env: clone.env, reject: false, cwd: clone.dir, all: true, timeout: 30_000 },
      );
      expect(r.exitCode, r.all).toBe(3);
      expect(r.all).toContain(`another baton daemon (pid ${holder.proc.pid} on ${hostname()}`);
      expect(r.all).toMatch(`holds conversation "${conv}" on host "alpha"`);
      // The holder kept its lease (same generation, same process) and goes on delivering; the clone typed nothing.
      expect(holder.proc.exitCode).toBeNull();
      expect(await lease()).toEqual(before);
      const now = await delivered();
      await waitFor('4 more delivered', async () => (await delivered()) >= now + 4, 60_000);
      expect(holder.proc.exitCode).toBeNull();
      expect((await lease()).generation).toBe(before.generation);
      expect(readRecorder(cloneLog).typed).toEqual([]);
      expect(readRecorder(logs.claude1).typed.length).toBeGreaterThan(0);
    },
    120_000,
  );

  it("a message rejected on the receiver's machine is told to its sender's pane on the other machine", async () => {
    const conv = conversation();
    const config = machinesConfig(server.url, conv);
    const [a, b] = [machine('alpha', config), machine('beta', config)];
    await a.recorder('claude1');
    const logB = await b.recorder('claude2');
    await a.daemon();
    await b.daemon();
    // Out of turn (claude1 holds it), held on alpha until its expires_at passes: alpha rejects it, and beta's
    // daemon types the notice into claude2's pane.
    const expires = new Date(Date.now() + 3000).toISOString();
    b.send('c2_to_c1', 'late.json', { content: 'too late', expires_at: expires });
    await waitFor('claude2 told on beta', () => readRecorder(logB).pastes.some((t) => t.includes('late.json')), 30_000);
    const told = readRecorder(logB).pastes.find((t) => t.includes('late.json'))!;
    expect(told).toContain(
      `[baton] your message late.json to claude1 was not delivered: expired: its expires_at (${expires})`,
    );
    expect(told).toContain('write it again, corrected, if it still matters');
    expect(await archived(server.url, conv)).toEqual([]);
  }, 60_000);

  it('an invalid file is rejected on its machine with its reason, listed in the database; a bad post too', async () => {
    const conv = conversation();
    const config = machinesConfig(server.url, conv);
    const a = machine('alpha', config);
    await a.recorder('claude1');
    await a.daemon();
    a.send('c1_to_c2', 'broken.json', '{"content": ');
    const post = await a.cli(['post', '--as', 'claude1', '--', '']);
    expect(post.exitCode).toBe(2); // empty content: refused before it reaches the bus
    await waitFor(
      'rejected',
      async () =>
        (await a.status())?.message_counter === 0 &&
        (await a.cli(['status', '--json'])).stdout.includes('"rejected": 1'),
      15_000,
    );
    expect(a.ls('rejected').some((f) => f.startsWith('broken.json'))).toBe(true);
  }, 60_000);
});
