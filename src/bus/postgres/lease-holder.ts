/**
 * Who holds a machine's lease, as the database can prove it: the session holding the advisory lock, and the
 * heartbeat by the database's clock. Nothing local counts — a cloned VM with the same BATON_HOST found its live
 * twin's pid "gone" and the two took the lease from each other in turn. A held lock with a fresh heartbeat is
 * watched, not judged. docs/decisions/0007-what-the-database-proves.md.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Holder } from '../lease.js';
import type { Queryable } from './sql/bind.js';
import type { Pg } from './rows.js';
import { run } from './sql/bind.js';

/** How often the lease is looked at again while its holder is watched. */
const LOOK_MS = 100;

/** What the database proves about a machine's lease. */
export type Holding =
  /** Nobody holds its lock: it can be taken. */
  | { kind: 'free' }
  /** Its session lives and its heartbeat moved (or it was just taken): refuse, naming the holder when known. */
  | { kind: 'alive'; holder: Holder | null }
  /** Its session holds the lock but its heartbeat is older than the stale time: that session may be ended. */
  | { kind: 'stale'; holder: Holder | null; pid: number };

/** One look at the lease: the lock's session, and the row it wrote (if it is that session's). */
interface Look {
  lockPid: number | null;
  /** The row names the session that holds the lock (not a holder between taking the lock and its row). */
  own: boolean;
  holder: Holder | null;
  generation: string | null;
  heartbeat: number | null;
  stale: boolean;
}

async function look(c: Queryable, pg: Pg, staleMs: number): Promise<Look> {
  const at = { conversation: pg.conversation, host: pg.host, scoped: pg.sql.scoped(pg.conversation), staleMs };
  const r = (await run(c, pg.sql.lease.holding, at)).rows[0]!;
  const own = r.lock_pid !== null && r.backend_pid === r.lock_pid && r.released === false;
  return {
    lockPid: r.lock_pid,
    own,
    holder: own ? r.holder : null,
    generation: r.generation,
    heartbeat: r.heartbeat_ms,
    stale: own && r.stale === true,
  };
}

/** Since `first` (the same lock session), did the holder show it lives: a heartbeat, or a take-over? */
const moved = (first: Look, now: Look): boolean =>
  now.own && (!first.own || now.generation !== first.generation || (now.heartbeat ?? 0) > (first.heartbeat ?? 0));

/**
 * Who holds the lease of `pg`'s conversation on `pg.host`, proven: free, stale (its session may be
 * ended), or alive. A lock held with a fresh heartbeat is watched for at most `staleMs` and a little: it is
 * settled one way or the other by then (a holder whose row never names its session — stuck between
 * taking the lock and writing its row — is alive too: its session is).
 */
export async function leaseHolding(c: Queryable, pg: Pg, staleMs: number): Promise<Holding> {
  const until = performance.now() + staleMs + 1000;
  let first: Look | null = null;
  for (;;) {
    const now = await look(c, pg, staleMs);
    if (now.lockPid === null) return { kind: 'free' };
    if (now.stale) return { kind: 'stale', holder: now.holder, pid: now.lockPid };
    if (first?.lockPid !== now.lockPid)
      first = now; // another session took the lock meanwhile: watch that one
    else if (moved(first, now)) return { kind: 'alive', holder: now.holder };
    if (performance.now() > until) return { kind: 'alive', holder: now.holder };
    await sleep(LOOK_MS);
  }
}
