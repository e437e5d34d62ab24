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
import { channelOf } from './hints.js';
import type { Pg } from './rows.js';

export async function requestsFor(db: Db, pg: Pg): Promise<string[]> {
  const r = await db.query<{ name: string }>(
    'SELECT name FROM baton.requests WHERE conversation = $1 AND host = $2 AND reply IS NULL ORDER BY seq',
    [pg.conversation, pg.host],
  );
  return r.rows.map((x) => x.name);
}

export async function takeRequest(c: Conn, pg: Pg, name: string) {
  const r = await c.query<{ body: unknown }>(
    'UPDATE baton.requests SET taken = true WHERE name = $1 AND conversation = $2 AND reply IS NULL RETURNING body',
    [name, pg.conversation],
  );
  const row = r.rows[0];
  if (!row) return null; // withdrawn, or answered already
  const parsed = RequestSchema.safeParse(row.body);
  return {
    name,
    request: parsed.success ? parsed.data : { invalid: parsed.error.issues.map((i) => i.message).join('; ') },
  };
}

export async function answer(c: Conn, pg: Pg, name: string, reply: Reply): Promise<void> {
  await c.query('UPDATE baton.requests SET reply = $2, answered_at = now() WHERE name = $1 AND conversation = $3', [
    name,
    JSON.stringify(reply),
    pg.conversation,
  ]);
  await c.query(`SELECT pg_notify($1, 'reply')`, [channelOf(pg.conversation)]);
}

/** A request for the daemon of machine `host` (a person's, or a notice for one of its agents); returns its name. */
export async function insertRequest(db: Db, pg: Pg, host: string, request: Request): Promise<string> {
  const name = `req-${Date.now()}-${randomBytes(4).toString('hex')}`;
  await db.query(
    `WITH r AS (INSERT INTO baton.requests (conversation, name, host, body) VALUES ($1, $2, $3, $4) RETURNING seq) SELECT pg_notify($5, 'requests') FROM r`,
    [pg.conversation, name, host, JSON.stringify(request), channelOf(pg.conversation)],
  );
  return name;
}

/** Answers nobody read within a minute (a forwarded notice's, or a command that gave up) are dropped. */
export async function dropStaleReplies(db: Db, pg: Pg): Promise<void> {
  await db.query(`DELETE FROM baton.requests WHERE conversation = $1 AND answered_at < now() - interval '60 seconds'`, [
    pg.conversation,
  ]);
}

export async function findPersonMessage(db: Db, pg: Pg, request: string): Promise<ArchiveRecord | null> {
  const r = await db.query<{ record: ArchiveRecord }>(
    'SELECT record FROM baton.archive WHERE conversation = $1 AND person AND request = $2',
    [pg.conversation, request],
  );
  return r.rows[0]?.record ?? null;
}

export async function archivePersonMessage(
  c: Conn,
  pg: Pg,
  make: (id: string) => ArchiveRecord,
): Promise<ArchiveRecord> {
  const n = await c.query<{ n: number }>(
    'UPDATE baton.conversations SET user_counter = user_counter + 1 WHERE name = $1 RETURNING user_counter AS n',
    [pg.conversation],
  );
  const counter = n.rows[0]!.n;
  const record = make(formatId(counter, 'user'));
  await c.query(
    'INSERT INTO baton.archive (conversation, id, counter, person, receiver, request, record) VALUES ($1, $2, $3, true, $4, $5, $6)',
    [
      pg.conversation,
      record.id,
      counter,
      record.receiver,
      typeof record.request === 'string' ? record.request : null,
      JSON.stringify(record),
    ],
  );
  return record;
}
