/** The event log (events.ts): appended with a NOTIFY, read in pages. `s` is the schema, quoted. */
import { statement } from './bind.js';
import type { Json } from './codec.js';

type Conversation = { conversation: string };

export const eventsSql = (s: string) => ({
  append: statement<Conversation & { body: Json; channel: string }>(
    'events.append',
    `WITH e AS (INSERT INTO ${s}.events (conversation, body) VALUES (:conversation, :body) RETURNING seq)
     SELECT pg_notify(:channel, 'events') FROM e`,
  ),
  /** The position after the last event. */
  end: statement<Conversation, { end: string }>(
    'events.end',
    `SELECT coalesce(max(seq), 0) + 1 AS end FROM ${s}.events WHERE conversation = :conversation`,
  ),
  page: statement<Conversation & { from: number; until: number }, { seq: string; body: Record<string, unknown> }>(
    'events.page',
    `SELECT seq, body FROM ${s}.events WHERE conversation = :conversation AND seq >= :from AND seq < :until ORDER BY seq LIMIT 1000`,
  ),
});

export type EventsSql = ReturnType<typeof eventsSql>;
