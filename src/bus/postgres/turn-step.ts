/**
 * A turn step on the PostgreSQL bus: one transaction of four round trips (issue 15: it was eight, one per
 * statement, and a turn step sits on every delivery's path).
 *
 *   BEGIN
 *   1. the lease's generation read under FOR SHARE (no take-over commits while this runs), the
 *      conversation row locked (FOR UPDATE: turns from every machine wait here, one at a time), the
 *      waiting row deleted — one statement
 *      → fenced, refused by the turn rules on the state as stored, gone, or no longer valid: ROLLBACK
 *   2. the record archived (delivered_at null), the state saved, NOTIFY — one statement
 *   COMMIT
 *
 * Killed before COMMIT: nothing happened, the message waits. After it: archived and the turn passed, not
 * stamped; recovery types it again flagged. The "claimed" and "archived" failpoints sit after each
 * statement, inside the transaction, so the contract suite proves a kill there loses and repeats nothing.
 */
import type { Config } from '../../config/config.js';
import { turnTaken } from '../../core/conversation.js';
import { parseId } from '../../core/ids.js';
import { messageRecord } from '../../core/record.js';
import { failpoint } from '../../lib/failpoint.js';
import type { Approval, Commit, Step, Waiting } from '../bus.js';
import { FencedError } from '../lease.js';
import { channelOf, movedBy, tx, type Conn, type Db } from './db.js';
import { checkBody, seqOf, stateOf, waitingName, type Pg } from './rows.js';

export type StepOutcome = Commit | { kind: 'invalid'; reason: string };

/** Thrown inside the transaction to roll it back with an outcome that is not an error. */
class Undo {
  constructor(readonly outcome: StepOutcome) {}
}

export interface StepInput {
  w: Waiting | Approval;
  step: Step;
  extra: Record<string, unknown>;
  firstSeen: number;
  /** The lease generation this daemon holds (null: no lease to check). */
  generation: number | null;
}

export async function turnStep(db: Db, pg: Pg, maxBytes: Config['inbox']['max_bytes'], input: StepInput): Promise<StepOutcome> {
  try {
    return await tx(db, (c) => steps(c, pg, maxBytes, input));
  } catch (err) {
    if (err instanceof Undo) return err.outcome;
    throw err;
  }
}

async function steps(c: Conn, pg: Pg, maxBytes: number, { w, step, extra, firstSeen, generation }: StepInput): Promise<StepOutcome> {
  const d = w.direction;
  const status = 'firstSeen' in w ? 'waiting' : 'approval';
  const r = await c.query<{ state: unknown; generation: string | null; released: boolean | null; body: string | null; file: string | null }>(
    `WITH l AS (SELECT generation, released FROM baton.leases WHERE conversation = $1 AND host = $2 FOR SHARE),
          s AS (SELECT state FROM baton.conversations WHERE name = $1 FOR UPDATE),
          d AS (DELETE FROM baton.waiting WHERE seq = $3 AND conversation = $1 AND status = $4 RETURNING body, file)
     SELECT (SELECT state FROM s) AS state, (SELECT generation FROM l) AS generation, (SELECT released FROM l) AS released, d.body, d.file
       FROM (SELECT 1) AS one LEFT JOIN d ON true`,
    [pg.conversation, pg.host, seqOf(w.name), status],
  );
  const row = r.rows[0]!;
  if (generation !== null && (Number(row.generation) !== generation || row.released !== false)) {
    throw new FencedError(`the lease of conversation "${pg.conversation}" on host "${pg.host}" was taken over (generation ${row.generation ?? '?'}, ours ${generation})`);
  }
  const state = stateOf(row.state, pg);
  const decision = step(state);
  if (decision.action !== 'deliver') throw new Undo({ kind: 'refused', decision });
  if (row.body === null) throw new Undo({ kind: 'gone' });
  const checked = checkBody(row.body, d, maxBytes);
  if (!checked.ok) throw new Undo({ kind: 'invalid', reason: checked.reason });
  failpoint('claimed');
  const receivedAt = new Date(Date.now() - (performance.now() - firstSeen)).toISOString();
  const record = messageRecord(checked.message, { direction: d.name, from: d.from, to: d.to, file: row.file ?? waitingName(seqOf(w.name), null) }, decision, receivedAt, extra);
  const next = turnTaken(state, decision.next, new Date().toISOString());
  await c.query(
    `WITH a AS (INSERT INTO baton.archive (conversation, id, counter, person, receiver, record) VALUES ($1, $2, $3, false, $4, $5)),
          u AS (UPDATE baton.conversations SET state = $6 WHERE name = $1)
     SELECT pg_notify($7, $8)`,
    [pg.conversation, record.id, parseId(record.id), record.receiver, JSON.stringify(record), JSON.stringify(next), channelOf(pg.conversation), movedBy(pg.host)],
  );
  failpoint('archived');
  return { kind: 'committed', record, state: next, saved: true };
}
