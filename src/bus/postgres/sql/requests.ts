/**
 * A person's requests and messages (requests.ts, postgres-bus.ts): a request row addressed to the
 * machine whose daemon answers it, taken, answered, then deleted by the command that asked; a person's
 * message archived under the conversation's own user_NNNN counter. `s` is the schema, quoted.
 */
import type { ArchiveRecord } from '../../../core/record.js';
import type { Reply } from '../../../core/requests.js';
import { statement } from './bind.js';
import type { Json } from './codec.js';

type Named = { name: string };

export const requestsSql = (s: string) => ({
  /** A request for the daemon of `host`, and a NOTIFY that wakes it. */
  insert: statement<{ conversation: string; name: string; host: string; body: Json; channel: string }>(
    'requests.insert',
    `WITH r AS (INSERT INTO ${s}.requests (conversation, name, host, body) VALUES (:conversation, :name, :host, :body)
                RETURNING seq)
     SELECT pg_notify(:channel, 'requests') FROM r`,
  ),
  /** The unanswered requests addressed to `host`, oldest first. */
  forHost: statement<{ conversation: string; host: string }, { name: string }>(
    'requests.forHost',
    `SELECT name FROM ${s}.requests WHERE conversation = :conversation AND host = :host AND reply IS NULL ORDER BY seq`,
  ),
  take: statement<Named & { conversation: string }, { body: unknown }>(
    'requests.take',
    `UPDATE ${s}.requests SET taken = true WHERE name = :name AND conversation = :conversation AND reply IS NULL RETURNING body`,
  ),
  answer: statement<Named & { conversation: string; reply: Json }>(
    'requests.answer',
    `UPDATE ${s}.requests SET reply = :reply, answered_at = now() WHERE name = :name AND conversation = :conversation`,
  ),
  reply: statement<Named, { reply: Reply | null }>(
    'requests.reply',
    `SELECT reply FROM ${s}.requests WHERE name = :name`,
  ),
  remove: statement<Named>('requests.remove', `DELETE FROM ${s}.requests WHERE name = :name`),
  withdraw: statement<Named>('requests.withdraw', `DELETE FROM ${s}.requests WHERE name = :name AND NOT taken`),
  unanswered: statement<{ conversation: string }, { n: number }>(
    'requests.unanswered',
    `SELECT count(*)::int AS n FROM ${s}.requests WHERE conversation = :conversation AND reply IS NULL`,
  ),
  dropStale: statement<{ conversation: string }>(
    'requests.dropStale',
    `DELETE FROM ${s}.requests WHERE conversation = :conversation AND answered_at < now() - interval '60 seconds'`,
  ),

  /** A person's message, found again by the request that archived it. */
  findPerson: statement<{ conversation: string; request: string }, { record: ArchiveRecord }>(
    'requests.findPerson',
    `SELECT record FROM ${s}.archive WHERE conversation = :conversation AND person AND request = :request`,
  ),
  nextUserCounter: statement<{ conversation: string }, { n: number }>(
    'requests.nextUserCounter',
    `UPDATE ${s}.conversations SET user_counter = user_counter + 1 WHERE name = :conversation RETURNING user_counter AS n`,
  ),
  archivePerson: statement<{
    conversation: string;
    id: string;
    counter: number;
    receiver: string;
    request: string | null;
    record: Json;
  }>(
    'requests.archivePerson',
    `INSERT INTO ${s}.archive (conversation, id, counter, person, receiver, request, record)
     VALUES (:conversation, :id, :counter, true, :receiver, :request, :record)`,
  ),
});
