/**
 * Taking over a machine's lease on the PostgreSQL bus (docs/protocol.md §10), against a real server: only
 * what the database proves counts — the holder's session is gone (the advisory lock is free), or its
 * heartbeat is stale by the database's clock. A holder named like a process of this machine that does not
 * exist here (a cloned VM or container: the same BATON_HOST and hostname, another PID namespace) is alive
 * as long as its heartbeat moves, and is refused, never ended.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { type Holder, LeaseHeldError, type Lease } from '../../src/bus/bus.js';
import { openBus } from '../../src/bus/open.js';
import { loadConfig, locateConfig } from '../../src/config/load.js';
import { initialState } from '../../src/core/turns.js';
import { me, quiet } from '../contract/world.js';
import { usePostgres } from '../helpers/postgres.js';

const server = usePostgres();
let n = 0;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => {});
});

/** A conversation's bus on this server (this machine: `host`). */
async function open(host = 'alpha') {
  const dir = mkdtempSync(join(tmpdir(), 'baton-lease-'));
  const conversation = `lease-${process.pid}-${n++}`;
  writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify({
      agents: { claude1: { kind: 'generic', command: 'x', host }, claude2: { kind: 'generic', command: 'x', host } },
      directions: { c1_to_c2: ['claude1', 'claude2'], c2_to_c1: ['claude2', 'claude1'] },
      bus: { kind: 'postgres', url: server.url, conversation },
    }),
  );
  const before = process.env.BATON_HOST;
  process.env.BATON_HOST = host;
  const config = loadConfig(locateConfig(join(dir, 'config.json')));
  if (before === undefined) delete process.env.BATON_HOST;
  else process.env.BATON_HOST = before;
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  const bus = openBus(config);
  await bus.prepare(initialState(config.firstTurn));
  return { bus, conversation, host };
}

/**
 * Another daemon's lease, held by hand on its own session as the bus holds one: the advisory lock, then
 * its row. `beat`: it renews its heartbeat every 300 ms, as a live daemon does (every second).
 */
async function holdByHand(
  where: { conversation: string; host: string },
  holder: Holder,
  beat: boolean,
): Promise<{ session: pg.Client; alive(): Promise<boolean> }> {
  const session = new pg.Client({ connectionString: server.url });
  session.on('error', () => {});
  await session.connect();
  const key = [where.conversation, where.host];
  await session.query('SELECT pg_advisory_lock(hashtext($1), hashtext($2))', key);
  await session.query(
    `INSERT INTO baton.leases (conversation, host, holder, generation, backend_pid, heartbeat_at)
     VALUES ($1, $2, $3, 1, pg_backend_pid(), now())`,
    [...key, holder],
  );
  const timer = beat
    ? setInterval(() => {
        session
          .query('UPDATE baton.leases SET heartbeat_at = now() WHERE conversation = $1 AND host = $2', key)
          .catch(() => {});
      }, 300)
    : null;
  cleanups.push(async () => {
    if (timer) clearInterval(timer);
    await session.end();
  });
  return {
    session,
    alive: () =>
      session.query('SELECT 1').then(
        () => true,
        () => false,
      ),
  };
}

/** A pid no process of this machine has (above any pid_max): what a clone's daemon looks like from here. */
const NOT_HERE = 2 ** 22 + 7;

describe('taking over a machine lease on the PostgreSQL bus', () => {
  it('a holder whose heartbeat moves is refused at once, even named like a process this machine does not have', async () => {
    const { bus, conversation, host } = await open();
    const clone: Holder = { pid: NOT_HERE, host: hostname(), started_at: new Date().toISOString() };
    const other = await holdByHand({ conversation, host }, clone, true);
    const d = bus.delivery(quiet);
    const started = performance.now();
    const refused = await d
      .lease(me(), () => {})
      .then(
        (lease: Lease) => {
          cleanups.push(() => lease.release());
          return lease;
        },
        (err: unknown) => err,
      );
    expect(refused).toBeInstanceOf(LeaseHeldError);
    expect((refused as LeaseHeldError).holder).toEqual(clone);
    expect((refused as Error).message).toMatch(`another baton daemon (pid ${NOT_HERE} on ${hostname()}`);
    // Refused as soon as its heartbeat moved, well before it could have gone stale; its session untouched.
    expect(performance.now() - started).toBeLessThan(3000);
    expect(await other.alive()).toBe(true);
    // A command asking who holds it (to refuse the same way) gets the same answer.
    expect(await bus.leaseHolder()).toEqual({ kind: 'alive', holder: clone });
  }, 30_000);

  it('a holder whose session stays open but whose heartbeat stopped is taken over once stale by the database clock', async () => {
    const { bus, conversation, host } = await open();
    const paused = await holdByHand(
      { conversation, host },
      { pid: NOT_HERE, host: hostname(), started_at: new Date().toISOString() },
      false,
    );
    const started = performance.now();
    const d = bus.delivery(quiet);
    const lease = await d.lease(me(), () => {});
    cleanups.push(() => lease.release());
    // Waited for the stale time (5 s from its last heartbeat), then ended its session and took the next generation.
    expect(performance.now() - started).toBeGreaterThan(4000);
    expect(lease.generation).toBe(2);
    expect(await paused.alive()).toBe(false);
  }, 30_000);

  it('a holder whose session is gone (killed: the server freed its lock) is taken over at once', async () => {
    const { bus, conversation, host } = await open();
    const killed = await holdByHand(
      { conversation, host },
      { pid: NOT_HERE, host: hostname(), started_at: new Date().toISOString() },
      false,
    );
    await killed.session.end();
    const started = performance.now();
    const lease = await bus.delivery(quiet).lease(me(), () => {});
    cleanups.push(() => lease.release());
    expect(performance.now() - started).toBeLessThan(1500);
    expect(lease.generation).toBe(2);
  }, 30_000);
});
