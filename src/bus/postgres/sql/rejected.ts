/** Messages refused, kept with their reason (`rejected`). `s` is the schema, quoted. */
import { statement } from './bind.js';

type Conversation = { conversation: string };
/** A refused message as `rejected` keeps it. */
export type RejectedRow = Record<'stored_as' | 'reason', string> & Record<'file' | 'direction' | 'body', string | null>;

export const rejectedSql = (s: string) => ({
  insert: statement<Conversation & RejectedRow>(
    'rejected.insert',
    `INSERT INTO ${s}.rejected (conversation, stored_as, file, direction, reason, body)
     VALUES (:conversation, :stored_as, :file, :direction, :reason, :body)`,
  ),
  count: statement<Conversation, { n: number }>(
    'rejected.count',
    `SELECT count(*)::int AS n FROM ${s}.rejected WHERE conversation = :conversation`,
  ),
  latest: statement<
    Conversation & { limit: number },
    { stored_as: string; file: string | null; reason: string; direction: string | null; rejected_at: Date }
  >(
    'rejected.latest',
    `SELECT stored_as, file, reason, direction, rejected_at FROM ${s}.rejected
      WHERE conversation = :conversation ORDER BY seq DESC LIMIT :limit`,
  ),
});
