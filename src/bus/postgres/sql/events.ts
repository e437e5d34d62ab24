/** The event log (events.ts): appended with a NOTIFY, read in pages. `s` is the schema, quoted. */
import { statement } from './bind.js';
import type { Json } from './codec.js';

type Conversation = { conversation: string };

/**
 * What a statement adds to carry events (carried-events.ts): `:events` is a JSON array of {conversation,
 * channel, body}; they are inserted in its order, and each conversation's channel told once (`events`).
 * `ctes` goes in its WITH list, `told` in its final SELECT: a SELECT in WITH runs only when read.
 */
export const carriedSql = (s: string) => ({
  ctes: `ev AS (INSERT INTO ${s}.events (conversation, body)
                SELECT e.x->>'conversation', e.x->'body' FROM jsonb_array_elements(:events::jsonb) WITH ORDINALITY AS e(x, i)
                 ORDER BY e.i),
          evn AS (SELECT pg_notify(c.channel, 'events')
                    FROM (SELECT DISTINCT x->>'channel' AS channel FROM jsonb_array_elements(:events::jsonb) AS x) AS c)`,
  told: '(SELECT count(*) FROM evn)::int AS told',
});

export const eventsSql = (s: string) => ({
  append: statement<Conversation & { body: Json; channel: string }>(
    'events.append',
    `WITH e AS (INSERT INTO ${s}.events (conversation, body) VALUES (:conversation, :body) RETURNING seq)
     SELECT pg_notify(:channel, 'events') FROM e`,
  ),
  /** Events that no statement carried in time, or that one failed to carry: stored on their own. */
  carry: statement<{ events: Json }, { told: number }>(
    'events.carry',
    `WITH ${carriedSql(s).ctes} SELECT ${carriedSql(s).told}`,
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
