/**
 * What `baton ls --bus` reads (postgres/directory.ts): every conversation of the schema with its counts, and
 * every machine's lease. Reads only. `s` is the schema, quoted.
 */
import { plain, statement } from './bind.js';
import type { Holder } from '../../lease.js';

/** One machine's lease of one conversation. */
export interface LeaseRow {
  conversation: string;
  host: string;
  holder: Holder;
  heartbeat_at: Date;
  released: boolean;
  locked: boolean;
  fresh: boolean;
}

export const directorySql = (s: string) => ({
  /** Every conversation, its state, recorded config, and what waits for it; with the database's time. */
  conversations: plain<{
    name: string;
    state: unknown;
    config: Record<string, unknown> | null;
    config_host: string | null;
    config_at: Date | null;
    created_at: Date;
    waiting: Record<string, number>;
    approvals: number;
    rejected: number;
    now: Date;
  }>(
    'directory.conversations',
    `SELECT c.name, c.state, c.config, c.config_host, c.config_at, c.created_at,
            COALESCE((SELECT jsonb_object_agg(w.direction, w.n)
                        FROM (SELECT direction, count(*)::int AS n FROM ${s}.waiting
                               WHERE conversation = c.name AND status = 'waiting' GROUP BY direction) w),
                     '{}'::jsonb) AS waiting,
            (SELECT count(*)::int FROM ${s}.waiting WHERE conversation = c.name AND status = 'approval') AS approvals,
            (SELECT count(*)::int FROM ${s}.rejected WHERE conversation = c.name) AS rejected,
            now() AS now
       FROM ${s}.conversations c ORDER BY c.name`,
  ),
  /** Every machine's lease, as lease.hosts reads one conversation's: alive while its session holds a lock and beats. */
  leases: statement<{ staleMs: number }, LeaseRow>(
    'directory.leases',
    `SELECT l.conversation, l.host, l.holder, l.heartbeat_at, l.released,
            EXISTS (SELECT 1 FROM pg_locks k WHERE k.locktype = 'advisory' AND k.granted AND k.pid = l.backend_pid) AS locked,
            l.heartbeat_at > now() - make_interval(secs => :staleMs::float8 / 1000) AS fresh
       FROM ${s}.leases l ORDER BY l.conversation, l.host`,
  ),
});
