/**
 * Messages stored and not delivered yet: `waiting` rows of status 'waiting' (or 'approval' while a person
 * has to approve one: approvals.ts). `s` is the schema, quoted.
 */
import { statement } from './bind.js';

/** A waiting row as a daemon keeps it (rows.ts), or as a notification carries it (hints.ts). */
export type WaitingRow = { seq: string; direction: string; file: string | null; body: string };

type Conversation = { conversation: string };
type Row = { seq: number; conversation: string };

export const waitingSql = (s: string) => ({
  /** A posted message (`baton post`), and a NOTIFY that wakes its receiver's machine. */
  post: statement<
    Conversation & { direction: string; body: string; channel: string; payload: string },
    { seq: string }
  >(
    'waiting.post',
    `WITH w AS (INSERT INTO ${s}.waiting (conversation, direction, body) VALUES (:conversation, :direction, :body)
                RETURNING seq)
     SELECT seq, pg_notify(:channel, :payload) FROM w`,
  ),
  /**
   * What a daemon sees (waiting-view.ts): the state, its version and the conversation's generation (a new
   * one when it was made anew), on each of its waiting rows; no row at all when the conversation has none.
   */
  view: statement<
    Conversation & { directions: string[] },
    { state: unknown; version: string; gen: string } & { [K in keyof WaitingRow]: WaitingRow[K] | null }
  >(
    'waiting.view',
    `SELECT c.state, c.version, c.gen, w.seq, w.direction, w.file, w.body FROM ${s}.conversations c
       LEFT JOIN ${s}.waiting w ON w.conversation = c.name AND w.status = 'waiting' AND w.direction = ANY(:directions)
      WHERE c.name = :conversation ORDER BY w.seq`,
  ),
  /** Stored and not delivered in these directions, waiting or waiting for approval. */
  countIn: statement<Conversation & { directions: string[] }, { n: number }>(
    'waiting.countIn',
    `SELECT count(*)::int AS n FROM ${s}.waiting WHERE conversation = :conversation AND direction = ANY(:directions)`,
  ),
  countByDirection: statement<Conversation, { direction: string; n: number }>(
    'waiting.countByDirection',
    `SELECT direction, count(*)::int AS n FROM ${s}.waiting WHERE conversation = :conversation AND status = 'waiting' GROUP BY direction`,
  ),
  /** A waiting message taken out to be rejected. */
  take: statement<Row, { body: string; file: string | null }>(
    'waiting.take',
    `DELETE FROM ${s}.waiting WHERE seq = :seq AND conversation = :conversation RETURNING body, file`,
  ),
});
