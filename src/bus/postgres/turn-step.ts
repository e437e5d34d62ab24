/**
 * A turn step on the PostgreSQL bus: one transaction, inside the caller's lease check (delivery.ts).
 *
 *   lock the conversation row (FOR UPDATE: turns from every machine wait here, one at a time)
 *   → decide on the state as stored → delete the waiting row → archive the record (delivered_at null)
 *   → save the state → NOTIFY → COMMIT
 *
 * Killed before COMMIT: nothing happened, the message waits. After it: archived and the turn passed, not
 * stamped; recovery types it again flagged. The "claimed" and "archived" failpoints sit inside the
 * transaction, so the contract suite proves a kill there loses and repeats nothing.
 */
import type { Config } from '../../config/config.js';
import { turnTaken } from '../../core/conversation.js';
import { parseId } from '../../core/ids.js';
import { messageRecord } from '../../core/record.js';
import { failpoint } from '../../lib/failpoint.js';
import type { Approval, Commit, Step, Waiting } from '../bus.js';
import { channelOf, type Conn } from './db.js';
import { checkBody, seqOf, stateOf, waitingName, type Pg } from './rows.js';

export type StepOutcome = Commit | { kind: 'invalid'; reason: string };

export async function turnStep(c: Conn, pg: Pg, maxBytes: Config['inbox']['max_bytes'], w: Waiting | Approval, step: Step, extra: Record<string, unknown>, firstSeen: number): Promise<StepOutcome> {
  const d = w.direction;
  const s = await c.query('SELECT state FROM baton.conversations WHERE name = $1 FOR UPDATE', [pg.conversation]);
  const state = stateOf(s.rows[0].state, pg);
  const decision = step(state);
  if (decision.action !== 'deliver') return { kind: 'refused', decision };
  const status = 'firstSeen' in w ? 'waiting' : 'approval';
  const r = await c.query<{ body: string; file: string | null }>('DELETE FROM baton.waiting WHERE seq = $1 AND conversation = $2 AND status = $3 RETURNING body, file', [seqOf(w.name), pg.conversation, status]);
  const row = r.rows[0];
  if (!row) return { kind: 'gone' };
  const checked = checkBody(row.body, d, maxBytes);
  if (!checked.ok) return { kind: 'invalid', reason: checked.reason };
  failpoint('claimed');
  const receivedAt = new Date(Date.now() - (performance.now() - firstSeen)).toISOString();
  const record = messageRecord(checked.message, { direction: d.name, from: d.from, to: d.to, file: row.file ?? waitingName(seqOf(w.name), null) }, decision, receivedAt, extra);
  await c.query('INSERT INTO baton.archive (conversation, id, counter, person, receiver, record) VALUES ($1, $2, $3, false, $4, $5)', [pg.conversation, record.id, parseId(record.id), record.receiver, JSON.stringify(record)]);
  failpoint('archived');
  const next = turnTaken(state, decision.next, new Date().toISOString());
  await c.query('UPDATE baton.conversations SET state = $2 WHERE name = $1', [pg.conversation, JSON.stringify(next)]);
  await c.query(`SELECT pg_notify($1, 'messages')`, [channelOf(pg.conversation)]);
  return { kind: 'committed', record, state: next, saved: true };
}
