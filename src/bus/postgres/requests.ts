/**
 * A person's requests and messages on the PostgreSQL bus. A request row names the machine that answers
 * it (postgres-bus.ts picks it: the receiver's machine for a message, else the turn holder's); taking
 * it sets `taken` (it can no longer be withdrawn), answering sets `reply`, and the asking command
 * deletes the row once it has read the reply. A person's message is archived under the next user_NNNN
 * from the conversation's own counter, in the same fenced transaction.
 */
import { formatId } from '../../core/ids.js';
import type { ArchiveRecord } from '../../core/record.js';
import { randomBytes } from 'node:crypto';
import { RequestSchema, type Reply, type Request } from '../../core/requests.js';
import type { Conn, Db } from './db.js';
import type { Pg } from './rows.js';
import { run } from './sql/bind.js';
import { Json } from './sql/codec.js';

export async function requestsFor(db: Db, pg: Pg): Promise<string[]> {
  const r = await run(db, pg.sql.requests.forHost, { conversation: pg.conversation, host: pg.host });
  return r.rows.map((x) => x.name);
}

export async function takeRequest(c: Conn, pg: Pg, name: string) {
  const r = await run(c, pg.sql.requests.take, { name, conversation: pg.conversation });
  const row = r.rows[0];
  if (!row) return null; // withdrawn, or answered already
  const parsed = RequestSchema.safeParse(row.body);
  return {
    name,
    request: parsed.success ? parsed.data : { invalid: parsed.error.issues.map((i) => i.message).join('; ') },
  };
}

export async function answer(c: Conn, pg: Pg, name: string, reply: Reply): Promise<void> {
  await run(c, pg.sql.requests.answer, { name, reply: Json.of(reply), conversation: pg.conversation });
  await run(c, pg.sql.conversations.notify, { channel: pg.channel, payload: 'reply' });
}

/** A request for the daemon of machine `host` (a person's, or a notice for one of its agents); returns its name. */
export async function insertRequest(db: Db, pg: Pg, host: string, request: Request): Promise<string> {
  const name = `req-${Date.now()}-${randomBytes(4).toString('hex')}`;
  await run(db, pg.sql.requests.insert, {
    conversation: pg.conversation,
    name,
    host,
    body: Json.of(request),
    channel: pg.channel,
  });
  return name;
}

/** Answers nobody read within a minute (a forwarded notice's, or a command that gave up) are dropped. */
export async function dropStaleReplies(db: Db, pg: Pg): Promise<void> {
  await run(db, pg.sql.requests.dropStale, { conversation: pg.conversation });
}

export async function findPersonMessage(db: Db, pg: Pg, request: string): Promise<ArchiveRecord | null> {
  const r = await run(db, pg.sql.requests.findPerson, { conversation: pg.conversation, request });
  return r.rows[0]?.record ?? null;
}

export async function archivePersonMessage(
  c: Conn,
  pg: Pg,
  make: (id: string) => ArchiveRecord,
): Promise<ArchiveRecord> {
  const { conversation } = pg;
  const n = await run(c, pg.sql.requests.nextUserCounter, { conversation });
  const counter = n.rows[0]!.n;
  const record = make(formatId(counter, 'user'));
  await run(c, pg.sql.requests.archivePerson, {
    conversation,
    id: record.id,
    counter,
    receiver: record.receiver,
    request: typeof record.request === 'string' ? record.request : null,
    record: Json.of(record),
  });
  return record;
}
