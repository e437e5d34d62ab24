/**
 * Faults across machines on the PostgreSQL bus: each test runs a ping-pong between two
 * machines (own folders, tmux servers, daemons, BATON_HOST) over one real PostgreSQL, breaks something
 * mid-conversation, lets everything come back, and checks docs/protocol.md §10's promises (helpers/machines.ts).
 * Seeded where random: BATON_STORM_SEED=<seed> npx vitest run test/integration/machines-faults.test.ts
 */
import type { ResultPromise } from 'execa';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { scaleTime, waitFor } from '../helpers/harness.js';
import { countArchived, diagnose, invariants, machinesConfig, query, useMachines } from '../helpers/machines.js';
import { usePostgres } from '../helpers/postgres.js';

const server = usePostgres();
const machine = useMachines();
let n = 0;

/** Two machines, a recorder each, both daemons running, the opening written on alpha. */
async function pingPong(extra: Record<string, unknown> = {}, scale = 1) {
  const conv = `faults-${process.pid}-${n++}`;
  const config = machinesConfig(server.url, conv, extra);
  const a = machine('alpha', config);
  const b = machine('beta', config);
  for (const m of [a, b]) scaleTime(m, scale);
  const logs = {
    claude1: await a.recorder('claude1', { reply: true }),
    claude2: await b.recorder('claude2', { reply: true }),
  };
  const daemons: Record<'alpha' | 'beta', ResultPromise> = {
    alpha: (await a.daemon()).proc,
    beta: (await b.daemon()).proc,
  };
  a.send('c1_to_c2', 'opening.json', { content: 'ping' });
  const count = () => countArchived(server.url, conv);
  const reach = (k: number, what: string, ms = 60_000) =>
    waitFor(`${k} messages (${what})`, async () => (await count()) >= k, ms, 10).catch(async (e: Error) => {
      throw new Error(`${e.message}\n${await diagnose(server.url, conv, [a, b], logs)}`);
    });
  return { conv, a, b, logs, daemons, count, reach };
}

/** Stop both daemons once the last archived message is stamped, then check the invariants. */
async function settle(t: Awaited<ReturnType<typeof pingPong>>, target: number) {
  await t.reach(target, 'the end');
  await waitFor(
    'the last one stamped',
    async () => {
      const rows = await query<{ delivered: boolean }>(
        server.url,
        'SELECT delivered FROM baton.archive WHERE conversation = $1 AND NOT person ORDER BY counter DESC LIMIT 1',
        [t.conv],
      );
      return rows[0]?.delivered;
    },
    30_000,
  );
  for (const d of Object.values(t.daemons)) d.kill('SIGTERM');
  for (const d of Object.values(t.daemons)) {
    const r = await d;
    expect(r.exitCode, `a daemon's exit after SIGTERM: ${String(r.all).slice(-2000)}`).toBe(0);
  }
  return invariants(server.url, t.conv, t.logs, { opening: 'ping', machines: [t.a, t.b] });
}

describe('faults across machines (PostgreSQL bus)', () => {
  const SEED = Number(process.env.BATON_STORM_SEED || 20261124);
  it(`kill -9 storm across both machines' daemons during a 100-message ping-pong (seed ${SEED})`, async () => {
    const t = await pingPong();
    let seed = SEED;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    let kills = 0;
    for (; kills < 12; kills++) {
      const target = (await t.count()) + 2 + Math.floor(rand() * 8);
      const delay = rand() < 0.4 ? 0 : rand() * 30;
      await t.reach(target, `kill ${kills + 1}, seed ${SEED}`);
      if (delay) await sleep(delay);
      const host = rand() < 0.5 ? 'alpha' : 'beta';
      t.daemons[host].kill('SIGKILL');
      await t.daemons[host].catch(() => {});
      t.daemons[host] = (await (host === 'alpha' ? t.a : t.b).daemon()).proc;
    }
    const r = await settle(t, Math.max(100, (await t.count()) + 4));
    console.log(
      `machines storm (seed ${SEED}): ${kills} kills, ${r.n} messages, ${r.redelivered} redelivered, ${r.waiting} replies waiting, 0 lost, 0 duplicated`,
    );
  }, 240_000);

  it('PostgreSQL stopped (immediate) and started again mid-conversation: the daemons wait, then go on', async () => {
    const t = await pingPong({}, 0.25);
    await t.reach(6, 'before the stop');
    await server.stop('immediate');
    // Both daemons lost the lease with the database (5 s, here scaled) and wait for it: neither exits.
    for (const m of [t.a, t.b]) await waitFor(`${m.host} waits`, () => m.output.includes('trying again every'), 30_000);
    for (const d of Object.values(t.daemons))
      expect(d.exitCode, 'a daemon exited while the database was away').toBeNull();
    await server.start();
    const r = await settle(t, (await t.count()) + 8);
    expect(r.n).toBeGreaterThanOrEqual(14);
  }, 180_000);

  it("a daemon's database connections killed (pg_terminate_backend): it takes its lease again and goes on", async () => {
    const t = await pingPong();
    for (let i = 1; i <= 3; i++) {
      await t.reach(4 * i, `terminate ${i}`);
      await query(
        server.url,
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'baton' AND pid <> pg_backend_pid()`,
      );
    }
    const r = await settle(t, (await t.count()) + 6);
    expect(r.n).toBeGreaterThanOrEqual(18);
  }, 180_000);

  it('a daemon paused past its lease while another takes over types nothing after SIGCONT', async () => {
    const t = await pingPong({}, 0.25);
    await t.reach(5, 'before the pause');
    const paused = t.daemons.beta;
    paused.kill('SIGSTOP');
    // Past the lease's stale time (5 s, here scaled): the database shows beta's heartbeat stale.
    await waitFor('beta stale', async () => (await t.a.status())?.hosts?.beta?.alive === false, 20_000);
    t.daemons.beta = (await t.b.daemon()).proc; // takes over: ends the paused one's session, a new generation
    await t.reach((await t.count()) + 4, 'after the take-over');
    paused.kill('SIGCONT');
    const gone = await paused;
    expect(gone.exitCode, String(gone.all).slice(-1500)).toBe(3); // fenced, and another holds the lease: it exits
    const r = await settle(t, (await t.count()) + 4);
    expect(r.n).toBeGreaterThanOrEqual(13);
  }, 180_000);
});
