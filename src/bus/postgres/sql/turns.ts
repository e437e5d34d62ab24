/**
 * The turn step's and the stamp's statements (turn-step.ts, store.ts say when each runs and why it is
 * shaped so). `s` is the schema, quoted.
 */
import { statement } from './bind.js';
import type { Json } from './codec.js';
import { carriedSql } from './events.js';
import type { Fence } from './lease.js';

export const turnsSql = (s: string, carried = carriedSql(s)) => ({
  /**
   * The one-statement turn step: each part only if the one before it ran — lease → conversation row
   * locked at the version read → waiting row deleted (if its body is the one read) → record archived →
   * state saved with version + 1 → NOTIFY, carrying `version` and `hint` when there is one. The events it
   * carries are stored whatever the step does.
   */
  cas: statement<
    {
      conversation: string;
      host: string;
      seq: number;
      status: 'waiting' | 'approval';
      version: string;
      generation: number | null;
      body: string;
      id: string;
      /** The record's ID as a number (parseId: null for an ID that is none, refused by NOT NULL). */
      counter: number | null;
      receiver: string;
      record: Json;
      state: Json;
      channel: string;
      moved: string;
      hint: string | null;
      /** Events it carries (carried-events.ts). */
      events: Json;
    },
    Fence & { locked: number; deleted: number; version: string | null; notified: number; told: number }
  >(
    'turns.cas',
    `WITH l AS (SELECT generation, released FROM ${s}.leases WHERE conversation = :conversation AND host = :host FOR SHARE),
          s AS (SELECT 1 FROM ${s}.conversations WHERE name = :conversation AND version = :version
                  AND (:generation::bigint IS NULL OR EXISTS (SELECT 1 FROM l WHERE generation = :generation AND NOT released)) FOR UPDATE),
          d AS (DELETE FROM ${s}.waiting WHERE seq = :seq AND conversation = :conversation AND status = :status
                  AND body = :body AND EXISTS (SELECT 1 FROM s) RETURNING 1),
          a AS (INSERT INTO ${s}.archive (conversation, id, counter, person, receiver, record)
                SELECT :conversation, :id, :counter, false, :receiver, :record FROM d RETURNING 1),
          u AS (UPDATE ${s}.conversations SET state = :state, version = version + 1
                 WHERE name = :conversation AND EXISTS (SELECT 1 FROM a) RETURNING version),
          n AS (SELECT pg_notify(:channel, CASE WHEN :hint::text IS NULL THEN :moved
                                                ELSE :moved || '#' || version || ' ' || :hint END) FROM u),
          ${carried.ctes}
     SELECT (SELECT generation FROM l) AS generation, (SELECT released FROM l) AS released, (SELECT count(*) FROM s)::int AS locked,
            (SELECT count(*) FROM d)::int AS deleted, (SELECT version FROM u) AS version, (SELECT count(*) FROM n)::int AS notified,
            ${carried.told}`,
  ),

  /** What a step with no view of the message decides on: the state, its version and the row (nulls: gone). */
  read: statement<
    { conversation: string; seq: number; status: 'waiting' | 'approval' },
    { state: unknown; version: string; body: string | null; file: string | null }
  >(
    'turns.read',
    `SELECT c.state, c.version, w.body, w.file FROM ${s}.conversations c
       LEFT JOIN ${s}.waiting w ON w.conversation = c.name AND w.seq = :seq AND w.status = :status
      WHERE c.name = :conversation`,
  ),

  /**
   * A record stamped delivered once, merged with what was added to it, under the lease's generation; and
   * the events it carries.
   */
  stamp: statement<
    {
      conversation: string;
      host: string;
      id: string;
      record: Json;
      generation: number | null;
      gen: string | null;
      events: Json;
    },
    Fence & { told: number }
  >(
    'turns.stamp',
    `WITH l AS (SELECT generation, released FROM ${s}.leases WHERE conversation = :conversation AND host = :host FOR SHARE),
          u AS (UPDATE ${s}.archive SET record = record || :record::jsonb, delivered = true
                 WHERE conversation = :conversation AND id = :id AND NOT delivered
                   AND (:generation::bigint IS NULL OR EXISTS (SELECT 1 FROM l WHERE generation = :generation AND NOT released))
                   AND (:gen::text IS NULL OR EXISTS (SELECT 1 FROM ${s}.conversations WHERE name = :conversation AND gen = :gen))),
          ${carried.ctes}
     SELECT (SELECT generation FROM l) AS generation, (SELECT released FROM l) AS released, ${carried.told}`,
  ),
});
