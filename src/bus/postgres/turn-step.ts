/**
 * A turn step on the PostgreSQL bus. Two forms, one promise (docs/protocol.md §6: the record archived, the waiting
 * row gone and the state saved together, or none of it):
 *
 * **One statement** (casStep), the usual one: the daemon decides on the state it read (the turn rules are
 * pure, core/turns.ts) and builds the record from the waiting row it read; the statement applies it only
 * if the stored state's version is still the one read, under the lease's generation — each part runs only
 * if the one before it did (lease → conversation row locked at that version → waiting row deleted, if its
 * body is the one read → record archived → state saved with version + 1 → NOTIFY), so a stale view
 * changes nothing and is read again. One round trip (a turn step sat on every delivery's path with four,
 * and held the conversation's row lock across them). It also carries the process's events waiting to be
 * stored (carried-events.ts).
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
 * stamped; recovery types it again flagged. Refused by the server for the message's own data (a data
 * exception): nothing happened, and the outcome is `invalid` — it is rejected, never retried. The "claimed"
 * and "archived" failpoints sit after each statement, inside the transaction, so the contract suite proves a
 * kill there loses and repeats nothing.
 */
import { turnTaken } from '../../core/conversation.js';
import { parseId } from '../../core/ids.js';
import { messageRecord, type ArchiveRecord } from '../../core/record.js';
import type { State } from '../../core/state.js';
import { failpoint } from '../../lib/failpoint.js';
import type { Approval, Commit, Step, Waiting } from '../bus.js';
import { carrying } from './carried-events.js';
import { tx, unstorable, type Conn, type Db } from './db.js';
import { movedBy, stateHint } from './hints.js';
import { fenceUnless } from './lease.js';
import { checkBody, seqOf, stateOf, waitingName, type Pg } from './rows.js';
import { run } from './sql/bind.js';
import { Json } from './sql/codec.js';

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

/** Where a turn step runs: the durable pool, the conversation, `inbox.max_bytes`, the conversation's clock. */
export interface StepOn {
  db: Db;
  pg: Pg;
  maxBytes: number;
  /** The conversation's time (the database's, db-clock.ts): the record's received_at, the turn's start. */
  now: () => number;
}

/** What the daemon read: the state at `version`, and the waiting row's body and stored file name. */
export interface Expected {
  state: State;
  version: string;
  body: string;
  file: string | null;
}

export interface Planning {
  state: State;
  /** The waiting row as read (null: it is gone). */
  row: { body: string; file: string | null } | null;
  input: StepInput;
  maxBytes: number;
  /** The clocks, read once by the caller: the conversation's and performance.now() (firstSeen's clock). */
  now: { wall: number; mono: number };
}

export type Plan = Exclude<StepOutcome, { kind: 'committed' }> | { kind: 'go'; record: ArchiveRecord; next: State };

/**
 * What a turn step of `input.w` commits, decided on `state` from the waiting row read — the same for
 * both forms: refused by the turn rules, gone, invalid, or the record and the next state. Pure: the
 * clocks come in as `now`.
 */
export function plan({ state, row, input, maxBytes, now }: Planning): Plan {
  const { w, step, extra, firstSeen } = input;
  const d = w.direction;
  const decision = step(state);
  if (decision.action !== 'deliver') return { kind: 'refused', decision };
  if (row === null) return { kind: 'gone' };
  const checked = checkBody(row.body, d, maxBytes);
  if (!checked.ok) return { kind: 'invalid', reason: checked.reason };
  const receivedAt = new Date(now.wall - (now.mono - firstSeen)).toISOString();
  const record = messageRecord({
    message: checked.message,
    route: { direction: d.name, from: d.from, to: d.to, file: row.file ?? waitingName(seqOf(w.name), null) },
    decision,
    receivedAt,
    extra,
  });
  return { kind: 'go', record, next: turnTaken(state, decision.next, new Date(now.wall).toISOString()) };
}

const clocks = (on: StepOn) => ({ wall: on.now(), mono: performance.now() });

/** The values a record is archived with. */
const archived = (pg: Pg, record: ArchiveRecord, next: State) => ({
  conversation: pg.conversation,
  id: record.id,
  counter: parseId(record.id),
  receiver: record.receiver,
  record: Json.of(record),
  state: Json.of(next),
  channel: pg.channel,
  moved: movedBy(pg.host),
});

export async function casStep(on: StepOn, input: StepInput & { w: Waiting }, seen: Expected): Promise<StepOutcome> {
  const { db, pg, maxBytes } = on;
  const { w, generation } = input;
  const p = plan({ state: seen.state, row: seen, input, maxBytes, now: clocks(on) });
  if (p.kind !== 'go') return p;
  const { record, next } = p;
  // Claiming, archiving and saving are one instant here: a kill at either failpoint is a kill before the
  // statement (the contract suite's atomic-step expectation: nothing happened, the message waits).
  failpoint('claimed');
  failpoint('archived');
  const r = await carrying(pg, (events) =>
    run(db, pg.sql.turns.cas, {
      ...archived(pg, record, next),
      host: pg.host,
      seq: seqOf(w.name),
      version: seen.version,
      generation,
      body: seen.body,
      hint: stateHint(next),
      events,
    }),
  ).catch(refusedData);
  if ('kind' in r) return r;
  const row = r.rows[0]!;
  fenceUnless(row, pg, generation);
  if (!row.locked) return { kind: 'changed' }; // the state moved since it was read: read it again
  if (!row.deleted || row.version === null) return { kind: 'gone' };
  return { kind: 'committed', record, state: next, saved: true, version: row.version };
}

/**
 * The turn step of `input`: in one statement for a waiting message this daemon has read (`seen`), in a
 * transaction for an approval or a message not read.
 */
export function stepOf(on: StepOn, input: StepInput, seen: Expected | null): Promise<StepOutcome> {
  const { w } = input;
  return seen && 'firstSeen' in w ? casStep(on, { ...input, w }, seen) : turnStep(on, input);
}

export async function turnStep(on: StepOn, input: StepInput): Promise<StepOutcome> {
  try {
    return await tx(on.db, (c) => steps(c, on, input));
  } catch (err) {
    if (err instanceof Undo) return err.outcome;
    return refusedData(err);
  }
}

/**
 * A step the server refused for the message's own data (db.ts, unstorable): rolled back, and `invalid` —
 * the message is rejected with the reason, as one that can never be stored. Any other error is thrown
 * (retried by the loop).
 */
function refusedData(err: unknown): StepOutcome {
  const reason = unstorable(err);
  if (reason === null) throw err;
  return { kind: 'invalid', reason };
}

async function steps(c: Conn, on: StepOn, input: StepInput): Promise<StepOutcome> {
  const { pg, maxBytes } = on;
  const { w, generation } = input;
  const r = await run(c, pg.sql.turns.claim, {
    conversation: pg.conversation,
    host: pg.host,
    seq: seqOf(w.name),
    status: 'firstSeen' in w ? 'waiting' : 'approval',
  });
  const row = r.rows[0]!;
  fenceUnless(row, pg, generation);
  const state = stateOf(row.state, pg);
  const read = row.body === null ? null : { body: row.body, file: row.file };
  const p = plan({ state, row: read, input, maxBytes, now: clocks(on) });
  if (p.kind !== 'go') throw new Undo(p);
  const { record, next } = p;
  failpoint('claimed');
  await run(c, pg.sql.turns.commit, archived(pg, record, next));
  failpoint('archived');
  return { kind: 'committed', record, state: next, saved: true };
}
