/**
 * Moderated mode on the PostgreSQL bus (docs/protocol.md §9): a message waiting for a person's approval is its
 * waiting row with status 'approval' (one per sender); approved, it is committed from there like any
 * other; refused, it moves to `rejected` with the reason (store.ts). Writes run inside the caller's fenced
 * transaction (delivery.ts).
 */
import type { Config, Direction } from '../../config/config.js';
import type { Approval, Waiting } from '../bus.js';
import type { Conn, Db } from './db.js';
import { seqOf, waitingName, type Pg } from './rows.js';
import { checkText } from '../folders/outbox.js';
import { run } from './sql/bind.js';

export async function moderate(c: Conn, pg: Pg, config: Config, w: Waiting): Promise<'queued' | 'held' | 'gone'> {
  const senders = new Map(config.directions.map((d) => [d.name, d.from]));
  const q = await run(c, pg.sql.approvals.locked, { conversation: pg.conversation });
  if (q.rows.some((r) => senders.get(r.direction) === w.direction.from)) return 'held';
  const u = await run(c, pg.sql.approvals.queue, { seq: seqOf(w.name), conversation: pg.conversation });
  return u.rowCount ? 'queued' : 'gone';
}

/** Approvals this machine delivers (its agents receive them), oldest first. */
export async function approvals(db: Db, pg: Pg, here: Direction[]): Promise<Approval[]> {
  const directions = here.map((d) => d.name);
  const r = await run(db, pg.sql.approvals.listIn, { conversation: pg.conversation, directions });
  return r.rows.map((x) => {
    const name = waitingName(x.seq, x.file);
    return { key: `${x.direction}/${name}`, name, direction: here.find((d) => d.name === x.direction)! };
  });
}

export async function examineApproval(db: Db, pg: Pg, a: Approval, maxBytes: number) {
  const r = await run(db, pg.sql.approvals.body, { seq: seqOf(a.name), conversation: pg.conversation });
  if (!r.rows[0]) return { kind: 'gone' as const };
  const c = checkText(r.rows[0].body, a.direction, maxBytes);
  return c.ok ? { kind: 'valid' as const, message: c.message } : { kind: 'invalid' as const, reason: c.reason };
}
