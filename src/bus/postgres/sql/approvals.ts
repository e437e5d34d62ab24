/**
 * Moderated mode (../approvals.ts): a waiting row of status 'approval' waits for a person; one per
 * sender. `s` is the schema, quoted.
 */
import { statement } from './bind.js';

type Conversation = { conversation: string };
type Row = { seq: number; conversation: string };
type Listed = { seq: string; direction: string; file: string | null };

export const approvalsSql = (s: string) => ({
  locked: statement<Conversation, { direction: string }>(
    'approvals.locked',
    `SELECT direction FROM ${s}.waiting WHERE conversation = :conversation AND status = 'approval' FOR UPDATE`,
  ),
  queue: statement<Row>(
    'approvals.queue',
    `UPDATE ${s}.waiting SET status = 'approval' WHERE seq = :seq AND conversation = :conversation AND status = 'waiting'`,
  ),
  listIn: statement<Conversation & { directions: string[] }, Listed>(
    'approvals.listIn',
    `SELECT seq, direction, file FROM ${s}.waiting
      WHERE conversation = :conversation AND status = 'approval' AND direction = ANY(:directions) ORDER BY seq`,
  ),
  list: statement<Conversation, Listed>(
    'approvals.list',
    `SELECT seq, direction, file FROM ${s}.waiting WHERE conversation = :conversation AND status = 'approval' ORDER BY seq`,
  ),
  listWithBodies: statement<Conversation, Listed & { body: string }>(
    'approvals.listWithBodies',
    `SELECT seq, direction, file, body FROM ${s}.waiting WHERE conversation = :conversation AND status = 'approval' ORDER BY seq`,
  ),
  body: statement<Row, { body: string }>(
    'approvals.body',
    `SELECT body FROM ${s}.waiting WHERE seq = :seq AND conversation = :conversation AND status = 'approval'`,
  ),
  take: statement<Row, { body: string; file: string | null }>(
    'approvals.take',
    `DELETE FROM ${s}.waiting WHERE seq = :seq AND conversation = :conversation AND status = 'approval' RETURNING body, file`,
  ),
});
