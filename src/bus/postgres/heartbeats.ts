/**
 * The heartbeats of every lease one process holds in one database, in one statement a second (a renewal per
 * lease was 200 statements/s at 100 conversations over 3 machines). Each lease keeps its own session and advisory
 * lock; the renewal runs on one member's session (the carrier), moving to another when it breaks. A row held FOR
 * SHARE is skipped and renews alone; a row no longer the lease's generation loses that lease.
 * docs/decisions/0004-one-process-many-conversations.md.
 */
import type pg from 'pg';
import { isConnectionError } from './db.js';
import type { LeaseSql } from './sql/lease.js';
import { run } from './sql/bind.js';
import { timing } from '../../lib/timing.js';

/** How often the heartbeat is written, and how old it may get before another daemon may take over. */
const HEARTBEAT_MS = timing.leaseHeartbeatMs;
export const STALE_MS = timing.leaseStaleMs;

/** What a lease gives the shared heartbeat. */
export interface Beating {
  /** Its row: what the heartbeat names. */
  readonly row: { conversation: string; host: string; generation: number };
  /** Its own session: where a round may run. */
  readonly session: pg.Client;
  /** Neither lost nor released. */
  usable(): boolean;
  /** Renewed by the round sent at `sent` (performance.now()), answered at `got` with the database's time. */
  renewed(sent: number, dbMs: number, got: number): void;
  /** Skipped (its row held by a write transaction): renew alone. */
  skipped(): void;
  lose(why: string): void;
}

const groups = new Map<string, Heartbeats>();

/** Renew `member` with every other lease of this process in the same database and schema; returns leave. */
export function joinHeartbeats(key: string, sql: LeaseSql, member: Beating): () => void {
  let group = groups.get(key);
  if (!group) {
    const made = new Heartbeats(sql, () => groups.get(key) === made && groups.delete(key));
    groups.set(key, (group = made));
  }
  group.join(member);
  let left = false;
  return () => {
    if (!left) group.leave(member);
    left = true;
  };
}

class Heartbeats {
  private readonly members = new Set<Beating>();
  private timer: NodeJS.Timeout | null = null;
  /** The round in flight (null: none), and which it is: an answer to an abandoned round is ignored. */
  private beating: { at: number; carrier: Beating; round: number } | null = null;
  private rounds = 0;

  constructor(
    private readonly sql: LeaseSql,
    private readonly empty: () => unknown,
  ) {}

  join(m: Beating): void {
    this.members.add(m);
    this.timer ??= setInterval(() => void this.beat(), HEARTBEAT_MS);
  }

  leave(m: Beating): void {
    this.members.delete(m);
    if (this.members.size > 0) return;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.empty();
  }

  private async beat(): Promise<void> {
    const sent = performance.now();
    // One round at a time. One that has hung past the stale time (a session that neither answers nor
    // breaks) loses its carrier, as that lease's own heartbeat would have; the next round runs on another.
    if (this.beating) {
      if (sent - this.beating.at <= STALE_MS) return;
      this.beating.carrier.lose(`the lease's heartbeat got no answer for ${Math.round(sent - this.beating.at)} ms`);
      this.beating = null;
    }
    const list = [...this.members].filter((m) => m.usable());
    const carrier = list[0];
    if (!carrier) return;
    const round = ++this.rounds;
    this.beating = { at: sent, carrier, round };
    try {
      const r = await run(carrier.session, this.sql.heartbeats, {
        conversations: list.map((m) => m.row.conversation),
        hosts: list.map((m) => m.row.host),
        generations: list.map((m) => m.row.generation),
      });
      if (this.beating?.round !== round) return;
      const got = performance.now();
      for (const row of r.rows) {
        const m = list[Number(row.i) - 1]!;
        if (!row.ours) m.lose(`another daemon took over conversation "${m.row.conversation}" on host "${m.row.host}"`);
        else if (row.renewed) m.renewed(sent, row.db_ms, got);
        else m.skipped();
      }
    } catch (err) {
      if (this.beating?.round !== round) return;
      // The carrier's session broke: that lease is lost (its lock may be gone); the others try again next round.
      if (isConnectionError(err)) carrier.lose(`lost the database connection (${String(err)})`);
      else for (const m of list) m.lose(`cannot renew the lease: ${String(err)}`);
    } finally {
      if (this.beating?.round === round) this.beating = null;
    }
  }
}
