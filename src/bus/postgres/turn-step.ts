/**
 * A turn step on the PostgreSQL bus. Two forms, one promise (SPEC §6: the record archived, the waiting
 * row gone and the state saved together, or none of it):
 *
 * **One statement** (casStep), the usual one: the daemon decides on the state it read (the turn rules are
 * pure, core/turns.ts) and builds the record from the waiting row it read; the statement applies it only
 * if the stored state's version is still the one read, under the lease's generation — each part runs only
 * if the one before it did (lease → conversation row locked at that version → waiting row deleted, if its
 * body is the one read → record archived → state saved with version + 1 → NOTIFY), so a stale view
 * changes nothing and is read again. One round trip (issue 15: a turn step sat on every delivery's path
 * with four, and held the conversation's row lock across them).
 *
 * **A transaction of four round trips** (turnStep), when the daemon holds no such view (an approval a
 * person approved):
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
import { messageRecord, type ArchiveRecord } from '../../core/record.js';
import { failpoint } from '../../lib/failpoint.js';
import type { Approval, Commit, Step, Waiting } from '../bus.js';
import { tx, type Conn, type Db } from './db.js';
import { channelOf, movedBy, stateHint } from './hints.js';
import { fenceUnless } from './lease.js';
import { checkBody, seqOf, stateOf, waitingName, type Pg } from './rows.js';
import type { State } from '../../core/state.js';

/** `version`: the stored state's version after a commit, when the step knows it. */
export type StepOutcome = (Commit & { version?: string }) | { kind: 'invalid'; reason: string };

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

/** What the daemon read: the state at `version`, and the waiting row's body and stored file name. */
export interface Expected {
  state: State;
  version: string;
  body: string;
  file: string | null;
}

/**
 * What a turn step of `input.w` commits, decided on `state` from the waiting row's `body` (null: the row
 * is gone) — the same for both forms: refused by the turn rules, gone, invalid, or the record and the
 * next state.
 */
function plan(
  state: State,
  body: string | null,
  file: string | null,
  input: StepInput,
  maxBytes: number,
): Exclude<StepOutcome, { kind: 'committed' }> | { kind: 'go'; record: ArchiveRecord; next: State } {
  const { w, step, extra, firstSeen } = input;
  const d = w.direction;
  const decision = step(state);
  if (decision.action !== 'deliver') return { kind: 'refused', decision };
  if (body === null) return { kind: 'gone' };
  const checked = checkBody(body, d, maxBytes);
  if (!checked.ok) return { kind: 'invalid', reason: checked.reason };
  const receivedAt = new Date(Date.now() - (performance.now() - firstSeen)).toISOString();
  const record = messageRecord(
    checked.message,
    { direction: d.name, from: d.from, to: d.to, file: file ?? waitingName(seqOf(w.name), null) },
    decision,
    receivedAt,
    extra,
  );
  return { kind: 'go', record, next: turnTaken(state, decision.next, new Date().toISOString()) };
}

export async function casStep(
  db: Db,
  pg: Pg,
  maxBytes: number,
  input: StepInput & { w: Waiting },
  seen: Expected,
): Promise<StepOutcome> {
  const { w, generation } = input;
  const p = plan(seen.state, seen.body, seen.file, input, maxBytes);
  if (p.kind !== 'go') return p;
  const { record, next } = p;
  // Claiming, archiving and saving are one instant here: a kill at either failpoint is a kill before the
  // statement (the contract suite's atomic-step expectation: nothing happened, the message waits).
  failpoint('claimed');
  failpoint('archived');
  const r = await db.query<{
    generation: string | null;
    released: boolean | null;
    locked: number;
    deleted: number;
    version: string | null;
  }>(
    `WITH l AS (SELECT generation, released FROM baton.leases WHERE conversation = $1 AND host = $2 FOR SHARE),
          s AS (SELECT 1 FROM baton.conversations WHERE name = $1 AND version = $4
                  AND ($5::bigint IS NULL OR EXISTS (SELECT 1 FROM l WHERE generation = $5 AND NOT released)) FOR UPDATE),
          d AS (DELETE FROM baton.waiting WHERE seq = $3 AND conversation = $1 AND status = 'waiting' AND body = $13 AND EXISTS (SELECT 1 FROM s) RETURNING 1),
          a AS (INSERT INTO baton.archive (conversation, id, counter, person, receiver, record) SELECT $1, $6, $7, false, $8, $9 FROM d RETURNING 1),
          u AS (UPDATE baton.conversations SET state = $10, version = version + 1 WHERE name = $1 AND EXISTS (SELECT 1 FROM a) RETURNING version),
          n AS (SELECT pg_notify($11, CASE WHEN $14::text IS NULL THEN $12 ELSE $12 || '#' || version || ' ' || $14 END) FROM u)
     SELECT (SELECT generation FROM l) AS generation, (SELECT released FROM l) AS released, (SELECT count(*) FROM s)::int AS locked,
            (SELECT count(*) FROM d)::int AS deleted, (SELECT version FROM u) AS version, (SELECT count(*) FROM n)::int AS notified`,
    [
      pg.conversation,
      pg.host,
      seqOf(w.name),
      seen.version,
      generation,
      record.id,
      parseId(record.id),
      record.receiver,
      JSON.stringify(record),
      JSON.stringify(next),
      channelOf(pg.conversation),
      movedBy(pg.host),
      seen.body,
      stateHint(next),
    ],
  );
  const row = r.rows[0]!;
  fenceUnless(row, pg, generation);
  if (!row.locked) return { kind: 'changed' }; // the state moved since it was read: read it again
  if (!row.deleted || row.version === null) return { kind: 'gone' };
  return { kind: 'committed', record, state: next, saved: true, version: row.version };
}

export async function turnStep(
  db: Db,
  pg: Pg,
  maxBytes: Config['inbox']['max_bytes'],
  input: StepInput,
): Promise<StepOutcome> {
  try {
    return await tx(db, (c) => steps(c, pg, maxBytes, input));
  } catch (err) {
    if (err instanceof Undo) return err.outcome;
    throw err;
  }
}

async function steps(c: Conn, pg: Pg, maxBytes: number, input: StepInput): Promise<StepOutcome> {
  const { w, generation } = input;
  const status = 'firstSeen' in w ? 'waiting' : 'approval';
  const r = await c.query<{
    state: unknown;
    generation: string | null;
    released: boolean | null;
    body: string | null;
    file: string | null;
  }>(
    `WITH l AS (SELECT generation, released FROM baton.leases WHERE conversation = $1 AND host = $2 FOR SHARE),
          s AS (SELECT state FROM baton.conversations WHERE name = $1 FOR UPDATE),
          d AS (DELETE FROM baton.waiting WHERE seq = $3 AND conversation = $1 AND status = $4 RETURNING body, file)
     SELECT (SELECT state FROM s) AS state, (SELECT generation FROM l) AS generation, (SELECT released FROM l) AS released, d.body, d.file
       FROM (SELECT 1) AS one LEFT JOIN d ON true`,
    [pg.conversation, pg.host, seqOf(w.name), status],
  );
  const row = r.rows[0]!;
  fenceUnless(row, pg, generation);
  const p = plan(stateOf(row.state, pg), row.body, row.file, input, maxBytes);
  if (p.kind !== 'go') throw new Undo(p);
  const { record, next } = p;
  failpoint('claimed');
  await c.query(
    `WITH a AS (INSERT INTO baton.archive (conversation, id, counter, person, receiver, record) VALUES ($1, $2, $3, false, $4, $5)),
          u AS (UPDATE baton.conversations SET state = $6, version = version + 1 WHERE name = $1)
     SELECT pg_notify($7, $8)`,
    [
      pg.conversation,
      record.id,
      parseId(record.id),
      record.receiver,
      JSON.stringify(record),
      JSON.stringify(next),
      channelOf(pg.conversation),
      movedBy(pg.host),
    ],
  );
  failpoint('archived');
  return { kind: 'committed', record, state: next, saved: true };
}
