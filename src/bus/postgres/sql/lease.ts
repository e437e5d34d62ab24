/**
 * The lease's statements (lease.ts: an advisory lock on the lease's own session plus a row with a
 * generation and a heartbeat; views.ts: what status reads of it). `s` is the schema, quoted. The
 * advisory lock's keys are the conversation's scoped name (sql/index.ts: distinct per schema) and the host.
 */
import type { Holder } from '../../lease.js';
import { statement } from './bind.js';

type Key = { conversation: string; host: string };
/** The lock's keys: `scoped` is the conversation's name made distinct per schema. */
type LockKey = { scoped: string; host: string };

export const leaseSql = (s: string) => ({
  tryLock: statement<LockKey, { ok: boolean }>(
    'lease.tryLock',
    'SELECT pg_try_advisory_lock(hashtext(:scoped), hashtext(:host)) AS ok',
  ),
  unlock: statement<LockKey>('lease.unlock', 'SELECT pg_advisory_unlock(hashtext(:scoped), hashtext(:host))'),

  /** Who holds it, and whether its heartbeat is older than `staleMs`. */
  holder: statement<Key & { staleMs: number }, { holder: Holder; backend_pid: number | null; stale: boolean }>(
    'lease.holder',
    `SELECT holder, backend_pid, heartbeat_at < now() - make_interval(secs => :staleMs::float8 / 1000) AS stale
       FROM ${s}.leases WHERE conversation = :conversation AND host = :host`,
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
  heartbeat: statement<Key & { generation: number }>(
    'lease.heartbeat',
    `UPDATE ${s}.leases SET heartbeat_at = now()
      WHERE conversation = :conversation AND host = :host AND generation = :generation AND NOT released`,
  ),
  release: statement<Key & { generation: number }>(
    'lease.release',
    `UPDATE ${s}.leases SET released = true WHERE conversation = :conversation AND host = :host AND generation = :generation`,
  ),

  /** Inside a write transaction: the generation, read FOR SHARE so no take-over commits meanwhile. */
  fence: statement<Key, { generation: string | null; released: boolean | null }>(
    'lease.fence',
    `SELECT generation, released FROM ${s}.leases WHERE conversation = :conversation AND host = :host FOR SHARE`,
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
