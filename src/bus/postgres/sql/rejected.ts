/** Messages refused, kept with their reason (`rejected`). `s` is the schema, quoted. */
import { statement } from './bind.js';

type Conversation = { conversation: string };

export const rejectedSql = (s: string) => ({
  insert: statement<
    Conversation & {
      storedAs: string;
      file: string | null;
      direction: string | null;
      reason: string;
      body: string | null;
    }
  >(
    'rejected.insert',
    `INSERT INTO ${s}.rejected (conversation, stored_as, file, direction, reason, body)
     VALUES (:conversation, :storedAs, :file, :direction, :reason, :body)`,
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
