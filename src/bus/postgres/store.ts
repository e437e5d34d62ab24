/** Small writes both sides of the PostgreSQL bus share. */
import { randomUUID } from 'node:crypto';
import type { ArchiveRecord } from '../../core/record.js';
import type { State } from '../../core/state.js';
import type { Approval, Waiting } from '../bus.js';
import { carrying } from './carried-events.js';
import { redact, tx, type Conn, type Db } from './db.js';
import { fenceUnless } from './lease.js';
import { migrate, SCHEMA_VERSION, schemaVersion } from './migrate.js';
import { StoreChanged } from '../turns.js';
import { seqOf, stateOf, type Pg } from './rows.js';
import { run, type Queryable } from './sql/bind.js';
import { Json } from './sql/codec.js';
import type { RejectedRow } from './sql/rejected.js';

const migrated = new WeakMap<Db, Map<string, Promise<number>>>();

/** The schema, created or migrated once per pool (docs/protocol.md §10: baton's own, versioned). */
export function ensureSchema(db: Db, pg: Pg): Promise<number> {
  const schema = pg.sql.schema;
  const known = migrated.get(db) ?? migrated.set(db, new Map()).get(db)!;
  let p = known.get(schema);
  if (!p) {
    p = migrate(db, { schema });
    p.catch(() => known.delete(schema));
    known.set(schema, p);
  }
  return p;
}

/**
 * Throws StoreChanged when the schema in the database is now newer than this baton knows: another baton
 * migrated it while this one runs, and its statements may no longer fit. Asked at most every 5 s per pool
 * and schema, however many conversations a process serves (a running daemon used to go on writing).
 */
export async function checkSchema(db: Db, pg: Pg): Promise<void> {
  const schema = pg.sql.schema;
  const known = asked.get(db) ?? asked.set(db, new Map()).get(db)!;
  let last = known.get(schema);
  if (!last || performance.now() - last.at > 5000) {
    last = { at: performance.now(), version: schemaVersion(db, schema) };
    known.set(schema, last);
    last.version.catch(() => known.delete(schema));
  }
  const found = await last.version;
  if (found > SCHEMA_VERSION)
    throw new StoreChanged(
      `the database's schema "${schema}" is now version ${found}, newer than this baton knows (${SCHEMA_VERSION}): upgrade baton`,
    );
}
const asked = new WeakMap<Db, Map<string, { at: number; version: Promise<number> }>>();

/** The conversation's row, made with `state` when there is none (a new conversation). */
export async function ensureConversation(db: Db, pg: Pg, state: State): Promise<void> {
  await ensureSchema(db, pg);
  await run(db, pg.sql.conversations.ensure, {
    conversation: pg.conversation,
    state: Json.of(state),
    gen: randomUUID(),
  });
}

export async function insertRejected(c: Queryable, pg: Pg, r: RejectedRow): Promise<void> {
  await run(c, pg.sql.rejected.insert, { conversation: pg.conversation, ...r });
}

/**
 * Take a waiting message out (or one waiting for a person's approval, refused) and keep it in `rejected` with its
 * reason. False when it was gone.
 */
export async function rejectWaiting(c: Conn, pg: Pg, w: Waiting | Approval, reason: string): Promise<boolean> {
  const take = 'firstSeen' in w ? pg.sql.waiting.take : pg.sql.approvals.take;
  const r = await run(c, take, { seq: seqOf(w.name), conversation: pg.conversation });
  const row = r.rows[0];
  if (!row) return false;
  await insertRejected(c, pg, {
    stored_as: `${pg.conversation}#${w.name}`,
    file: row.file,
    direction: w.direction.name,
    reason,
    body: row.body,
  });
  return true;
}

/** Merge daemon-owned fields into an archived record (a hook's receipt). False when there is none. */
export async function amendRecord(c: Conn, pg: Pg, id: string, fields: Record<string, unknown>): Promise<boolean> {
  const r = await run(c, pg.sql.archive.amend, { conversation: pg.conversation, id, fields: Json.of(fields) });
  return (r.rowCount ?? 0) > 0;
}

/** An archived record, or null. */
export async function readRecord(db: Db, pg: Pg, id: string): Promise<ArchiveRecord | null> {
  const r = await run(db, pg.sql.archive.record, { conversation: pg.conversation, id });
  return r.rows[0]?.record ?? null;
}

/** Messages stored and not yet delivered in these directions (waiting, or waiting for approval). */
export async function countWaiting(db: Db, pg: Pg, directions: string[]): Promise<number> {
  const r = await run(db, pg.sql.waiting.countIn, { conversation: pg.conversation, directions });
  return r.rows[0]!.n;
}

/**
 * Stamp a record delivered, once: a record stamped already keeps its stamp (and its redelivered flag); what was
 * added to it meanwhile (a hook's receipt, a turn's tokens) is merged, not replaced. One statement with the lease
 * checked inside it (and carrying the process's waiting events: carried-events.ts): a stamp is on every delivery's
 * path, and BEGIN, check, update, COMMIT were four round trips. `generation` null: no lease to check. `gen`: the
 * conversation's generation the record was committed in (null: not checked) — a delivery that ends after the
 * conversation was started anew must not stamp the new one's record of the same ID.
 */
export async function stampRecord(
  db: Db,
  pg: Pg,
  record: ArchiveRecord,
  fence: { generation: number | null; gen: string | null },
): Promise<void> {
  const { generation } = fence;
  const r = await carrying(pg, (events) =>
    run(db, pg.sql.turns.stamp, {
      conversation: pg.conversation,
      host: pg.host,
      id: record.id,
      record: Json.of(record),
      generation,
      gen: fence.gen,
      events,
    }),
  );
  fenceUnless(r.rows[0], pg, generation);
}

/** Inside a write transaction: change the state as stored (its row locked), one more version, and say so. */
export async function updateState(c: Conn, pg: Pg, change: (state: State) => State): Promise<State> {
  const { conversations } = pg.sql;
  const s = await run(c, conversations.lockState, { conversation: pg.conversation });
  if (!s.rows[0]) throw gone(pg);
  const next = change(stateOf(s.rows[0].state, pg));
  await run(c, conversations.saveState, { conversation: pg.conversation, state: Json.of(next) });
  await run(c, conversations.notify, { channel: pg.channel, payload: 'messages' });
  return next;
}

/** The conversation's row is not there any more while a daemon runs (docs/protocol.md §10). */
export const gone = (pg: Pg): StoreChanged =>
  new StoreChanged(
    `conversation "${pg.conversation}" is gone from ${redact(pg.url)}: its row was deleted, or set aside by ` +
      '"baton up --fresh" on another machine',
  );

/**
 * Rename the conversation's rows to `<name>@<time>` (kept, never deleted) and start the name afresh with
 * `fresh`, a new generation, in one transaction: another machine's daemon never finds the name missing
 * (it would stop), and is told to look (NOTIFY) — it finds the new generation and follows it. The
 * machines' leases stay with the name: their generations, and so the tmux fence tokens, keep rising (a
 * lease made anew at generation 1 was refused by the token its old one had raised). Says where the old
 * rows went, or null when there was no conversation.
 */
export function setAside(db: Db, pg: Pg, fresh: State): Promise<string | null> {
  const old = pg.conversation;
  const to = `${old}@${new Date().toISOString()}`;
  const { conversations } = pg.sql;
  return tx(db, async (c) => {
    const r = await run(c, conversations.rename, { from: old, to });
    for (const rows of conversations.renameRows) await run(c, rows, { from: old, to });
    if (r.rowCount) {
      await run(c, conversations.ensure, { conversation: old, state: Json.of(fresh), gen: randomUUID() });
      await run(c, conversations.notify, { channel: pg.channel, payload: 'messages' });
    }
    return r.rowCount ? `conversation "${to}" in ${redact(pg.url)}` : null;
  });
}
