/**
 * The relay's statements (relay.ts: a claimed file stored once under its relay key, and the WAL position
 * that says when its insert is durable). `s` is the schema, quoted.
 */
import { plain, statement } from './bind.js';
import type { Json } from './codec.js';
import { carriedSql } from './events.js';

export const relaySql = (s: string, carried = carriedSql(s)) => ({
  /**
   * The key kept for good, the waiting row (only if the key was new), NOTIFY carrying the row as `hint`
   * when it fits; `epoch` names the server that committed it (a restart changes it). It also says where
   * the WAL is (as `wal` below, read before its own commit): on a busy machine the relay's earlier stores
   * learn from it that they are durable, with no question of their own.
   */
  store: statement<
    {
      conversation: string;
      direction: string;
      file: string;
      body: string;
      key: string;
      channel: string;
      payload: string;
      hint: string | null;
      /** Events it carries (carried-events.ts), stored whether the file is or not. */
      events: Json;
    },
    { epoch: string; inserted: string; flushed: string; stored: number; told: number }
  >(
    'relay.store',
    `WITH k AS (INSERT INTO ${s}.relayed (relay_key, conversation) VALUES (:key, :conversation) ON CONFLICT DO NOTHING RETURNING relay_key),
          w AS (INSERT INTO ${s}.waiting (conversation, direction, file, body, relay_key)
                SELECT :conversation, :direction, :file, :body, relay_key FROM k RETURNING seq),
          n AS (SELECT pg_notify(:channel, CASE WHEN :hint::text IS NULL THEN :payload
                                                ELSE :payload || '#' || seq || ' ' || :hint END) FROM w),
          ${carried.ctes}
     SELECT pg_postmaster_start_time()::text AS epoch, pg_current_wal_insert_lsn()::text AS inserted,
            pg_current_wal_flush_lsn()::text AS flushed, (SELECT count(*) FROM n)::int AS stored, ${carried.told}`,
  ),
});

/** Where the server's WAL is, and since when the server runs: the same in every schema. */
export const wal = plain<{ inserted: string; flushed: string; epoch: string }>(
  'relay.wal',
  `SELECT pg_current_wal_insert_lsn()::text AS inserted, pg_current_wal_flush_lsn()::text AS flushed,
          pg_postmaster_start_time()::text AS epoch`,
);
