/**
 * The lease's statements (lease.ts: an advisory lock on the lease's own session plus a row with a
 * generation and a heartbeat; views.ts: what status reads of it). `s` is the schema, quoted. The
 * advisory lock's keys are the conversation's scoped name (sql/index.ts: distinct per schema) and the host.
 */
import type { Holder } from '../../lease.js';
import { statement } from './bind.js';

type Key = { conversation: string; host: string };
/** The lease row as a write reads it under FOR SHARE (nulls: no row). */
export type Fence = { generation: string | null; released: boolean | null };
/** The database's time as the statement runs, in ms since the epoch (clock_timestamp: not the transaction's start). */
const DB_MS = '(extract(epoch FROM clock_timestamp()) * 1000)::float8';
/** The lock's keys: `scoped` is the conversation's name made distinct per schema. */
type LockKey = { scoped: string; host: string };

export const leaseSql = (s: string) => ({
  /** Taken or not, and the database's time (`db_ms`, ms since the epoch): a sample for the conversation's clock. */
  tryLock: statement<LockKey, { ok: boolean; db_ms: number }>(
    'lease.tryLock',
    `SELECT pg_try_advisory_lock(hashtext(:scoped), hashtext(:host)) AS ok, ${DB_MS} AS db_ms`,
  ),
  unlock: statement<LockKey>('lease.unlock', 'SELECT pg_advisory_unlock(hashtext(:scoped), hashtext(:host))'),

  /**
   * What the database knows of a machine's lease, in one read: the session holding its advisory lock
   * (`lock_pid`, null: nobody — a killed holder's session is gone), and its row — whose session wrote it,
   * its generation, and whether its heartbeat is older than `staleMs` by the database's clock. The lock's
   * two keys show in pg_locks as classid and objid (objsubid 2), as oids: the int4 keys cast.
   */
  holding: statement<
    Key & LockKey & { staleMs: number },
    {
      lock_pid: number | null;
      holder: Holder | null;
      generation: string | null;
      backend_pid: number | null;
      released: boolean | null;
      heartbeat_ms: number | null;
      stale: boolean | null;
    }
  >(
    'lease.holding',
    `SELECT (SELECT k.pid FROM pg_locks k
              WHERE k.locktype = 'advisory' AND k.granted AND k.objsubid = 2
                AND k.database = (SELECT oid FROM pg_database WHERE datname = current_database())
                AND k.classid = hashtext(:scoped)::oid AND k.objid = hashtext(:host)::oid LIMIT 1) AS lock_pid,
            l.holder, l.generation, l.backend_pid, l.released,
            (extract(epoch FROM l.heartbeat_at) * 1000)::float8 AS heartbeat_ms,
            l.heartbeat_at < now() - make_interval(secs => :staleMs::float8 / 1000) AS stale
       FROM (SELECT 1) one
       LEFT JOIN ${s}.leases l ON l.conversation = :conversation AND l.host = :host`,
  ),
  terminate: statement<{ pid: number }>('lease.terminate', 'SELECT pg_terminate_backend(:pid)'),

  /** Taken: the row made, or taken over with one more generation. */
  take: statement<Key & { holder: string }, { generation: string }>(
    'lease.take',
    `INSERT INTO ${s}.leases (conversation, host, holder, generation, backend_pid, heartbeat_at)
     VALUES (:conversation, :host, :holder, 1, pg_backend_pid(), now())
     ON CONFLICT (conversation, host) DO UPDATE SET holder = EXCLUDED.holder, generation = ${s}.leases.generation + 1,
       backend_pid = EXCLUDED.backend_pid, heartbeat_at = now(), released = false
     RETURNING generation`,
  ),
  /** Renewed (a row: still ours), with the database's time: a sample for the conversation's clock. */
  heartbeat: statement<Key & { generation: number }, { db_ms: number }>(
    'lease.heartbeat',
    `UPDATE ${s}.leases SET heartbeat_at = now()
      WHERE conversation = :conversation AND host = :host AND generation = :generation AND NOT released
      RETURNING ${DB_MS} AS db_ms`,
  ),
  /**
   * Every lease of one process renewed in one statement: `i` (1-based, the order given) says which lease
   * each row is. `renewed`: its heartbeat moved. `ours`: the row is still that generation's and not released
   * (false: taken over). A row a write transaction holds FOR SHARE is skipped (SKIP LOCKED: neither
   * renewed nor waited for — one lease's wait must not hold every other's renewal); its lease renews
   * itself alone (`heartbeat`).
   */
  heartbeats: statement<
    { conversations: string[]; hosts: string[]; generations: number[] },
    { i: string; renewed: boolean; ours: boolean; db_ms: number }
  >(
    'lease.heartbeats',
    `WITH k AS (SELECT * FROM unnest(:conversations::text[], :hosts::text[], :generations::bigint[])
                  WITH ORDINALITY AS k(conversation, host, generation, i)),
          t AS (SELECT l.conversation, l.host FROM ${s}.leases l JOIN k USING (conversation, host, generation)
                 WHERE NOT l.released FOR NO KEY UPDATE OF l SKIP LOCKED),
          u AS (UPDATE ${s}.leases l SET heartbeat_at = now() FROM t
                 WHERE l.conversation = t.conversation AND l.host = t.host RETURNING l.conversation, l.host)
     SELECT k.i, EXISTS (SELECT 1 FROM u WHERE u.conversation = k.conversation AND u.host = k.host) AS renewed,
            EXISTS (SELECT 1 FROM ${s}.leases l WHERE l.conversation = k.conversation AND l.host = k.host
                      AND l.generation = k.generation AND NOT l.released) AS ours,
            ${DB_MS} AS db_ms
       FROM k`,
  ),
  release: statement<Key & { generation: number }>(
    'lease.release',
    `UPDATE ${s}.leases SET released = true WHERE conversation = :conversation AND host = :host AND generation = :generation`,
  ),

  /** Inside a write transaction: the generation, read FOR SHARE so no take-over commits meanwhile. */
  fence: statement<Key, Fence & { gen: string | null }>(
    'lease.fence',
    `SELECT generation, released, (SELECT gen FROM ${s}.conversations WHERE name = :conversation) AS gen
       FROM ${s}.leases WHERE conversation = :conversation AND host = :host FOR SHARE`,
  ),

  /** Every machine's lease of a conversation: alive while its session holds an advisory lock and beats. */
  hosts: statement<
    { conversation: string; staleMs: number },
    { host: string; holder: Holder; heartbeat_at: Date; released: boolean; locked: boolean; fresh: boolean }
  >(
    'lease.hosts',
    `SELECT l.host, l.holder, l.heartbeat_at, l.released,
            EXISTS (SELECT 1 FROM pg_locks k WHERE k.locktype = 'advisory' AND k.granted AND k.pid = l.backend_pid) AS locked,
            l.heartbeat_at > now() - make_interval(secs => :staleMs::float8 / 1000) AS fresh
       FROM ${s}.leases l WHERE l.conversation = :conversation ORDER BY l.host`,
  ),
});

export type LeaseSql = ReturnType<typeof leaseSql>;
