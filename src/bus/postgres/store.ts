/** Small writes both sides of the PostgreSQL bus share. */
import { randomUUID } from 'node:crypto';
import type { ArchiveRecord } from '../../core/record.js';
import type { State } from '../../core/state.js';
import type { Conn, Db } from './db.js';
import { channelOf } from './hints.js';
import { fenceUnless } from './lease.js';
import { seqOf, stateOf, type Pg } from './rows.js';
import { migrate } from './schema.js';

const migrated = new WeakMap<Db, Promise<number>>();

/** The schema, created or migrated once per pool (SPEC §10: baton's own, versioned). */
export function ensureSchema(db: Db): Promise<number> {
  let p = migrated.get(db);
  if (!p) {
    p = migrate(db);
    p.catch(() => migrated.delete(db));
    migrated.set(db, p);
  }
  return p;
}

/** The conversation's row, made with `state` when there is none (a new conversation). */
export async function ensureConversation(db: Db, conversation: string, state: State): Promise<void> {
  await ensureSchema(db);
  await db.query(
    'INSERT INTO baton.conversations (name, state, gen) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING',
    [conversation, JSON.stringify(state), randomUUID()],
  );
}

export async function insertRejected(
  c: Conn | Db,
  conversation: string,
  r: { stored_as: string; file: string | null; direction: string | null; reason: string; body: string | null },
): Promise<void> {
  await c.query(
    'INSERT INTO baton.rejected (conversation, stored_as, file, direction, reason, body) VALUES ($1, $2, $3, $4, $5, $6)',
    [conversation, r.stored_as, r.file, r.direction, r.reason, r.body],
  );
}

/** Take a waiting message out and keep it in baton.rejected with its reason. False when it was gone. */
export async function rejectWaiting(
  c: Conn,
  conversation: string,
  w: { name: string; direction: { name: string } },
  reason: string,
): Promise<boolean> {
  const r = await c.query<{ body: string; file: string | null }>(
    'DELETE FROM baton.waiting WHERE seq = $1 AND conversation = $2 RETURNING body, file',
    [seqOf(w.name), conversation],
  );
  const row = r.rows[0];
  if (!row) return false;
  await insertRejected(c, conversation, {
    stored_as: `${conversation}#${w.name}`,
    file: row.file,
    direction: w.direction.name,
    reason,
    body: row.body,
  });
  return true;
}

/** Merge daemon-owned fields into an archived record (a hook's receipt). False when there is none. */
export async function amendRecord(
  c: Conn,
  conversation: string,
  id: string,
  fields: Record<string, unknown>,
): Promise<boolean> {
  const r = await c.query('UPDATE baton.archive SET record = record || $3::jsonb WHERE conversation = $1 AND id = $2', [
    conversation,
    id,
    JSON.stringify(fields),
  ]);
  return (r.rowCount ?? 0) > 0;
}

/** Messages stored and not yet delivered in these directions (waiting, or waiting for approval). */
export async function countWaiting(db: Db, conversation: string, directions: string[]): Promise<number> {
  const r = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM baton.waiting WHERE conversation = $1 AND direction = ANY($2)',
    [conversation, directions],
  );
  return r.rows[0]!.n;
}

/**
 * Stamp a record delivered, once: a record stamped already keeps its stamp (and its redelivered flag);
 * what was added to it meanwhile (a hook's receipt, a turn's tokens) is kept — merged, not replaced.
 * One statement (its own transaction) with the lease checked inside it, as a write transaction would:
 * a stamp is on every delivery's path, and BEGIN, check, update, COMMIT were four round trips (issue 15).
 * `generation` null: no lease to check.
 */
export async function stampRecord(db: Db, pg: Pg, record: ArchiveRecord, generation: number | null): Promise<void> {
  const r = await db.query<{ generation: string | null; released: boolean | null }>(
    `WITH l AS (SELECT generation, released FROM baton.leases WHERE conversation = $1 AND host = $4 FOR SHARE),
          u AS (UPDATE baton.archive SET record = record || $3::jsonb, delivered = true
                 WHERE conversation = $1 AND id = $2 AND NOT delivered
                   AND ($5::bigint IS NULL OR EXISTS (SELECT 1 FROM l WHERE generation = $5 AND NOT released)))
     SELECT (SELECT generation FROM l) AS generation, (SELECT released FROM l) AS released`,
    [pg.conversation, record.id, JSON.stringify(record), pg.host, generation],
  );
  fenceUnless(r.rows[0], pg, generation);
}

/** Inside a write transaction: change the state as stored (its row locked), one more version, and say so. */
export async function updateState(c: Conn, pg: Pg, change: (state: State) => State): Promise<State> {
  const s = await c.query('SELECT state FROM baton.conversations WHERE name = $1 FOR UPDATE', [pg.conversation]);
  const next = change(stateOf(s.rows[0].state, pg));
  await c.query('UPDATE baton.conversations SET state = $2, version = version + 1 WHERE name = $1', [
    pg.conversation,
    JSON.stringify(next),
  ]);
  await c.query(`SELECT pg_notify($1, 'messages')`, [channelOf(pg.conversation)]);
  return next;
}
