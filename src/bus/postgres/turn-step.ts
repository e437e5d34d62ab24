/**
 * A turn step on the PostgreSQL bus (docs/protocol.md §6: archived, waiting row gone and state saved together, or
 * none), in one statement (one round trip where there were four): lease → conversation row locked at the version
 * read → waiting row deleted if its body is the one read → record archived → state saved at version + 1 → NOTIFY.
 * A stale read changes nothing (`changed`: read again). With no view of the message (an approval) state and row
 * are read first, and a step the state moved under is tried again. A data exception: `invalid`, rejected, never
 * retried. Crash outcomes: delivery.ts. docs/decisions/0005-postgres-round-trips.md.
 */
import { turnTaken } from '../../core/conversation.js';
import { parseId } from '../../core/ids.js';
import { messageRecord, type ArchiveRecord } from '../../core/record.js';
import type { State } from '../../core/state.js';
import { failpoint } from '../../lib/failpoint.js';
import type { Approval, Commit, Step, Waiting } from '../bus.js';
import { carrying } from './carried-events.js';
import { unstorable, type Db } from './db.js';
import { movedBy, stateHint } from './hints.js';
import { fenceUnless } from './lease.js';
import { seqOf, stateOf, waitingName, type Pg } from './rows.js';
import { checkText } from '../folders/outbox.js';
import { gone } from './store.js';
import { run } from './sql/bind.js';
import { Json } from './sql/codec.js';

/** `version`: the stored state's version after a commit, when the step knows it. */
export type StepOutcome = (Commit & { version?: string }) | { kind: 'invalid'; reason: string };

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

/** What a step is decided on: the state at `version`, and the waiting row's body and stored file name (null: gone). */
export type Expected = { state: State; version: string; row: { body: string; file: string | null } | null };

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
 * What a turn step of `input.w` commits, decided on `state` from the waiting row read: refused by the
 * turn rules, gone, invalid, or the record and the next state. Pure: the clocks come in as `now`.
 */
export function plan({ state, row, input, maxBytes, now }: Planning): Plan {
  const { w, step, extra, firstSeen } = input;
  const d = w.direction;
  const decision = step(state);
  if (decision.action !== 'deliver') return { kind: 'refused', decision };
  if (row === null) return { kind: 'gone' };
  const checked = checkText(row.body, d, maxBytes);
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

/**
 * The turn step of `input`, decided on `seen` (what the daemon sees), or, with nothing seen of it, on the
 * state and row read now — read again while another step moves the state under it.
 */
export async function turnStep(on: StepOn, input: StepInput, seen: Expected | null): Promise<StepOutcome> {
  if (seen) return casStep(on, input, seen);
  for (let tries = 1; ; tries++) {
    const out = await casStep(on, input, await readFor(on, input.w));
    if (out.kind !== 'changed' || tries === 5)
      // Not decided on the view: no version, so the view is read again rather than moved on in place.
      return out.kind === 'committed' ? { ...out, version: undefined } : out;
  }
}

/** The state and `w`'s row as stored now, for a step with no view of it. */
async function readFor({ db, pg }: StepOn, w: Waiting | Approval): Promise<Expected> {
  const status = 'firstSeen' in w ? 'waiting' : 'approval';
  const r = await run(db, pg.sql.turns.read, { conversation: pg.conversation, seq: seqOf(w.name), status });
  const row = r.rows[0];
  if (!row) throw gone(pg);
  return {
    state: stateOf(row.state, pg),
    version: row.version,
    row: row.body === null ? null : { body: row.body, file: row.file },
  };
}

async function casStep(on: StepOn, input: StepInput, seen: Expected): Promise<StepOutcome> {
  const { db, pg, maxBytes } = on;
  const { w, generation } = input;
  const p = plan({ state: seen.state, row: seen.row, input, maxBytes, now: clocks(on) });
  if (p.kind !== 'go') return p;
  const { record, next } = p;
  // Claiming, archiving and saving are one instant here: a kill at either failpoint is a kill before the
  // statement (the contract suite's atomic-step expectation: nothing happened, the message waits).
  failpoint('claimed');
  failpoint('archived');
  const r = await carrying(pg, (events) =>
    run(db, pg.sql.turns.cas, {
      conversation: pg.conversation,
      id: record.id,
      counter: parseId(record.id),
      receiver: record.receiver,
      record: Json.of(record),
      state: Json.of(next),
      channel: pg.channel,
      moved: movedBy(pg.host),
      host: pg.host,
      seq: seqOf(w.name),
      status: 'firstSeen' in w ? 'waiting' : 'approval',
      version: seen.version,
      generation,
      body: seen.row!.body,
      hint: stateHint(next),
      events,
    }),
  ).catch(refusedData);
  if ('kind' in r) return r;
  const row = r.rows[0]!;
  fenceUnless(row, pg, generation);
  if (!row.locked) return { kind: 'changed' }; // the state moved since it was read: read it again
  if (!row.deleted || row.version === null) return { kind: 'gone' };
  return { kind: 'committed', record, state: next, version: row.version };
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
