/** Small writes both sides of the PostgreSQL bus share. */
import { randomUUID } from 'node:crypto';
import type { State } from '../../core/state.js';
import type { Conn, Db } from './db.js';
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
  await db.query('INSERT INTO baton.conversations (name, state, gen) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING', [conversation, JSON.stringify(state), randomUUID()]);
}

export async function insertRejected(
  c: Conn | Db,
  conversation: string,
  r: { stored_as: string; file: string | null; direction: string | null; reason: string; body: string | null },
): Promise<void> {
  await c.query('INSERT INTO baton.rejected (conversation, stored_as, file, direction, reason, body) VALUES ($1, $2, $3, $4, $5, $6)', [conversation, r.stored_as, r.file, r.direction, r.reason, r.body]);
}
