/**
 * The lease on the PostgreSQL bus: one daemon per (conversation, machine), docs/protocol.md §10. Two things hold
 * it: a session advisory lock (freed the moment a killed daemon's connection closes) and a `leases` row with a
 * generation and a heartbeat (heartbeats.ts; a paused daemon keeps its lock, so a stale heartbeat lets the next
 * taker end that session). Every write checks the generation; keystrokes carry it as the tmux fence token. Only
 * what the database proves decides who holds it (lease-holder.ts). The statements also read the database's time
 * (db-clock.ts). docs/decisions/0007-what-the-database-proves.md.
 */
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { FencedError, fenceToken, LeaseHeldError, type Holder, type Lease } from '../lease.js';
import { NewGeneration } from '../turns.js';
import { isoAt } from '../clock.js';
import { client, isConnectionError, type Conn } from './db.js';
import { DbClock } from './db-clock.js';
import { joinHeartbeats, STALE_MS, type Beating } from './heartbeats.js';
import { leaseHolding } from './lease-holder.js';
import type { Pg } from './rows.js';
import { run } from './sql/bind.js';
import type { Fence } from './sql/lease.js';

export { STALE_MS } from './heartbeats.js';

/** Whose lease: a conversation, on one machine. */
export type LeaseKey = Pick<Pg, 'conversation' | 'host'>;

/** The advisory lock's keys: the conversation's name made distinct per schema, and the host. */
const lockKeyOf = (pg: Pg) => ({ scoped: pg.sql.scoped(pg.conversation), host: pg.host });
const where = (k: LeaseKey) => `conversation "${k.conversation}" on host "${k.host}"`;

/**
 * Inside a write transaction: throws FencedError unless `generation` is still the newest for this machine,
 * and NewGeneration when the conversation is no longer the generation `gen` the daemon recovered (null: not
 * checked) — a write decided on the old one (ending it, a note's delivery) must not land in the new one.
 */
export async function checkGeneration(c: Conn, pg: Pg, generation: number, gen: string | null = null): Promise<void> {
  const r = await run(c, pg.sql.lease.fence, { conversation: pg.conversation, host: pg.host });
  fenceUnless(r.rows[0], pg, generation);
  if (gen !== null && r.rows[0]!.gen !== gen) throw startedAnew(pg);
}

/** The conversation was started anew under a running daemon (up --fresh on another machine). */
export const startedAnew = (k: LeaseKey): NewGeneration =>
  new NewGeneration(
    `conversation "${k.conversation}" was started anew (by "baton up --fresh" on another machine, the old one ` +
      'set aside): following the new one',
  );

/**
 * Throws FencedError unless `row` (read inside the same write, so no take-over commits meanwhile) is
 * still the lease of `generation`. `generation` null: no lease to check (a test's bus, a one-shot).
 */
export function fenceUnless(row: Fence | undefined, k: LeaseKey, generation: number | null): void {
  if (generation === null) return;
  if (!row || Number(row.generation) !== generation || row.released !== false)
    throw new FencedError(
      `the lease of ${where(k)} was taken over (generation ${row?.generation ?? '?'}, ours ${generation})`,
    );
}

/**
 * Take this machine's lease of `pg`'s conversation for `holder`, or throw LeaseHeldError naming the live holder.
 * It takes over when the holder's session is gone (its lock free) or its heartbeat is stale by the database's
 * clock (that session is ended). Each statement samples the database's time into `clock`: `started_at` uses it.
 */
export async function acquireLease(
  pg: Pg,
  holder: Holder,
  onLost: (why: string) => void,
  clock: DbClock = new DbClock(),
): Promise<Lease> {
  const { lease: sql } = pg.sql;
  const c = client(pg.url);
  // Until PgLease takes over the connection, a session that drops (the database restarting) must not be
  // an unhandled 'error' event — that would end the process; the query in flight fails on its own.
  const early = () => {};
  c.on('error', early);
  try {
    await c.connect();
    for (let attempt = 0; ; attempt++) {
      const sent = performance.now();
      const got = (await run(c, sql.tryLock, lockKeyOf(pg))).rows[0]!;
      clock.sample(got.db_ms, sent, performance.now());
      if (got.ok) break;
      const h = await leaseHolding(c, pg, STALE_MS);
      if (h.kind === 'alive' || attempt >= 20) throw new LeaseHeldError(where(pg), h.kind === 'free' ? null : h.holder);
      // Stale by the database's clock (paused, cut off): ending its session frees the lock.
      if (h.kind === 'stale') await run(c, sql.terminate, { pid: h.pid });
      await sleep(h.kind === 'stale' ? 100 : 0);
    }
    const me = { ...holder, started_at: isoAt(clock.now()) };
    const r = await run(c, sql.take, { conversation: pg.conversation, host: pg.host, holder: JSON.stringify(me) });
    // The take-over above is durable; heartbeats need not wait for the disk (a lost one only looks stale).
    await c.query('SET synchronous_commit TO off');
    // A heartbeat waits at most 1 s for the lease row (a write transaction of this daemon holds it FOR
    // SHARE while it waits for another machine's turn step): then it is unproven for now, not lost.
    await c.query(`SET lock_timeout TO '1000ms'`);
    const lease = new PgLease({ c, pg, holder: me, generation: Number(r.rows[0]!.generation), onLost, clock });
    c.off('error', early);
    return lease;
  } catch (err) {
    await c.end().catch(() => {});
    throw err;
  }
}

/** A lease just taken on `c`, its own session: the advisory lock is held there. */
interface Taken {
  c: pg.Client;
  pg: Pg;
  holder: Holder;
  generation: number;
  onLost: (why: string) => void;
  /** The conversation's clock: every heartbeat gives it a sample of the database's time. */
  clock: DbClock;
}

class PgLease implements Lease, Beating {
  readonly fence;
  readonly holder: Holder;
  readonly generation: number;
  readonly session: pg.Client;
  private readonly k: Pg;
  private readonly clock: DbClock;
  /** This lease's row (conversation, host, generation): what the heartbeat and the release name. */
  readonly row: { conversation: string; host: string; generation: number };
  private lost: string | null = null;
  private lastBeat = performance.now();
  private readonly leave: () => void;
  private readonly listeners: Array<(why: string) => void> = [];
  private released = false;

  constructor({ c, pg, holder, generation, onLost, clock }: Taken) {
    this.session = c;
    this.clock = clock;
    this.k = pg;
    this.holder = holder;
    this.generation = generation;
    this.row = { conversation: pg.conversation, host: pg.host, generation };
    this.listeners.push(onLost);
    // The tmux server option a keystroke is checked against: one per conversation, distinct per schema.
    this.fence = {
      key: `pg${createHash('sha1').update(pg.sql.scoped(pg.conversation)).digest('hex').slice(0, 10)}`,
      token: fenceToken(generation),
    };
    c.on('error', (err) => this.lose(`lost the database connection (${err.message})`));
    c.on('end', () => this.lose('the database connection closed'));
    // Renewed with every other lease this process holds in the database, one statement a second (heartbeats.ts).
    this.leave = joinHeartbeats(`${pg.url}\n${pg.sql.schema}`, pg.sql.lease, this);
  }

  usable(): boolean {
    return !this.lost && !this.released;
  }

  renewed(sent: number, dbMs: number, got: number): void {
    this.clock.sample(dbMs, sent, got);
    this.lastBeat = sent;
  }

  skipped(): void {
    void this.beat();
  }

  /** When the heartbeat of its own in flight was sent (null: none is). */
  private beating: number | null = null;

  /** Renewed alone, on its own session: when the shared round skipped it (its row held by a write). */
  private async beat(): Promise<void> {
    if (this.lost || this.released || this.beating !== null) return;
    const started = performance.now();
    this.beating = started;
    try {
      const r = await run(this.session, this.k.sql.lease.heartbeat, this.row);
      if (r.rowCount === 0) return this.lose(`another daemon took over ${where(this.k)}`);
      this.renewed(started, r.rows[0]!.db_ms, performance.now());
    } catch (err) {
      if ((err as { code?: string }).code === '55P03') return; // lock_timeout: not renewed this time (check() says so after the stale time)
      this.lose(
        isConnectionError(err)
          ? `lost the database connection (${String(err)})`
          : `cannot renew the lease: ${String(err)}`,
      );
    } finally {
      this.beating = null;
    }
  }

  lose(why: string): void {
    if (this.lost || this.released) return;
    this.lost = why;
    this.leave();
    this.session.end().catch(() => {});
    for (const l of this.listeners) l(why);
  }

  onLost(listener: (why: string) => void): void {
    this.listeners.push(listener);
  }

  check(): void {
    if (this.lost) throw new FencedError(this.lost);
    if (performance.now() - this.lastBeat > STALE_MS)
      throw new FencedError(
        `the lease of ${where(this.k)} was not renewed for ${Math.round(performance.now() - this.lastBeat)} ms`,
        false,
      );
  }

  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    this.leave();
    if (!this.lost) {
      const { lease } = this.k.sql;
      await run(this.session, lease.release, this.row).catch(() => {});
      await run(this.session, lease.unlock, lockKeyOf(this.k)).catch(() => {});
    }
    await this.session.end().catch(() => {});
  }
}
