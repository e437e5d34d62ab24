/**
 * The turn step and the state it moves (docs/protocol.md §5, §6): the turn rules are pure functions (core/)
 * a bus applies under its own serialisation — a daemon's copy of the state is a cache, the bus's the truth.
 * Every write needs the writer's lease: without it (lost, or not proven within the stale time) it throws
 * FencedError and writes nothing.
 */
import type { ArchiveRecord } from '../core/record.js';
import type { State } from '../core/state.js';
import type { Decision } from '../core/turns.js';
import type { Approval } from './approvals.js';
import type { Waiting } from './queues.js';

/** A turn step: the decision for a waiting message, taken on the state the bus holds at that moment. */
export type Step = (state: State) => Decision;

/** What a turn step did. Outcomes are data: the loop decides what each means. */
export type Commit =
  /** Committed (the record delivered_at null, archived or held by the bus until its stamp), the state moved on. */
  | { kind: 'committed'; record: ArchiveRecord; state: State }
  /** The step, taken on the current state, does not deliver (another machine moved the turn first). */
  | { kind: 'refused'; decision: Exclude<Decision, { action: 'deliver' }> }
  /** Someone else took or removed it meanwhile. */
  | { kind: 'gone' }
  /** Its content changed since it was examined: it is back in line, to be examined again. */
  | { kind: 'changed' };

/**
 * The conversation's store changed under a running daemon in a way it cannot follow — on the PostgreSQL
 * bus: its schema is newer than this baton knows (another baton migrated it), or its conversation's row
 * is gone (deleted by hand). Its statements may no longer fit, or its conversation is gone: the daemon
 * writes nothing more and stops, saying why.
 */
export class StoreChanged extends Error {
  override name = 'StoreChanged';
}

/**
 * The conversation was started anew under a running daemon (`baton up --fresh` on another machine of the
 * PostgreSQL bus: the old one set aside, a new generation under the same name). The daemon drops what it
 * held of the old one — never typing an old message into the new one — and follows the new one, keeping
 * its machine's lease and its panes (stopping left that machine out of the new conversation until someone
 * restarted it).
 */
export class NewGeneration extends Error {
  override name = 'NewGeneration';
}

/** The conversation's state: the daemon's copy, and changes to it (nearly every part of the daemon). */
export interface TurnState {
  /**
   * The state as this daemon last read or wrote it; no I/O. Another machine may have moved the turn since:
   * queues() reads it again, and commit() decides on the state as stored, never on this copy.
   */
  state(): State;
  /**
   * Change the state (docs/protocol.md §9: end, pause, resume, reminders, stalls; a turn's tokens), atomic
   * with respect to commits and other updates from every process and machine: `change` is applied to the
   * state as stored then. Returns the new state; killed mid-way, stored whole or not at all.
   */
  update(change: (state: State) => State): Promise<State>;
}

/** The turn step: taking a message (the taker), and settling its record when its delivery waits (the courier). */
export interface TurnStep {
  /**
   * The turn step, atomic with respect to every other commit and update of this conversation, on any
   * machine: take `w` out of its queue (or the approval queue), decide on the current state, archive it
   * (delivered_at null, `extra` in the record; the files bus holds the record in state.json until its stamp),
   * save the new state. Two daemons never commit one message twice: the second gets `gone`. Crash promise:
   * killed at any point, recovery finds it in exactly one place (its queue or the archive), and the state
   * agrees with the archive.
   */
  commit(w: Waiting | Approval, step: Step, extra?: Record<string, unknown>): Promise<Commit>;
  /**
   * The delivery under way must wait (its pane not ready, a step failed): what the bus still holds back of its
   * turn step is written out, so the archive shows the record, unstamped, while it waits. A no-op where the
   * turn step wrote it all (PostgreSQL); on the files bus the record is otherwise written once, by its stamp.
   */
  settle(): Promise<void>;
}
