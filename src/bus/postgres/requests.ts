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

/**
 * A daemon's requests, read only when one may have come: a request's insert NOTIFYs the conversation
 * (`requests`), and a new LISTEN session says so too (waiting-view.ts), so between them there is nothing to
 * read. The daemon asked at every re-scan (every 2 s, per conversation and machine): at 10–30 conversations
 * that was a quarter to a third of a statement per turn, for requests that come a few times a day. Still
 * read every fifth time, as the queue is (delivery.ts): a net under a bug, not under the network.
 */
export class RequestLooks {
  /** A notification (or none heard yet) since the last read that found nothing. */
  private maybe = true;
  private looks = 0;

  /** `hint`, which also marks a `requests` notification heard. */
  hearing<H extends { kind: string }>(hint: (h: H) => void): (h: H) => void {
    return (h) => {
      if (h.kind === 'requests') this.maybe = true;
      hint(h);
    };
  }

  async list(db: Db, pg: Pg, listening: boolean): Promise<string[]> {
    if (listening && !this.maybe && this.looks++ % 5 !== 0) return [];
    this.maybe = !listening; // one told while this reads is read again next time
    const r = await run(db, pg.sql.requests.forHost, { conversation: pg.conversation, host: pg.host });
    const names = r.rows.map((x) => x.name);
    if (names.length) this.maybe = true; // until they are taken
    return names;
  }
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
