/**
 * The Bus: everything baton needs from storage, behind one interface that the files bus (bus/files/,
 * the embedded default) and the PostgreSQL bus (docs/protocol.md §10) both implement and one contract suite checks
 * (test/contract/bus.contract.ts). Issue 14: storage was threaded through 27 modules; now the delivery
 * loop, the commands and the dashboard see only these interfaces.
 *
 * Three sides, each typed on its own so a caller sees only what it may use:
 * - DeliveryBus: the daemon's — the writer's lease, recovery, change hints, the waiting queues, the turn
 *   step, stamps, state updates, approvals, a person's messages and requests, events.
 * - BusReader: status, log, doctor and the dashboard — reads only, never blocks a writer.
 * - BusClient: `baton post` and the request commands — writes a message or a request, nothing else.
 *
 * Every method says what it promises when several processes (or machines) act at once, and what a
 * kill -9 in the middle leaves behind. The turn rules are not here: `commit` and `update` take pure
 * functions of the current state (core/), which a bus applies under its own serialisation — a daemon's
 * copy of the state is a cache, the bus's is the truth. Change hints are hints (pg-boss's notifier
 * pattern): the loop also re-scans on a timer, so a missed hint may delay a delivery, never lose it.
 */
import type { Amendment, ArchiveRecord } from '../core/record.js';
import type { Request, Reply } from '../core/requests.js';
import type { State } from '../core/state.js';
import type { Decision } from '../core/turns.js';
import type { Message } from '../core/message.js';
import type { Direction } from '../config/config.js';
import type { Logger } from '../lib/log.js';
import type { Holder, Lease } from './lease.js';
import type { BusReader } from './reader.js';
import type { EventLog } from './events.js';

/** A message waiting in a direction, as the bus examined it. `key` is the bus's own handle for it. */
export interface Waiting {
  key: string;
  /** What a person calls it: the file name on the files bus. */
  name: string;
  direction: Direction;
  /** performance.now() when this process first saw it (held time and latency are measured from here). */
  firstSeen: number;
  /** When its turn came: set by the daemon the first time it could be delivered. */
  turnSince?: number;
  /** A `held` event was logged for it (once per message). */
  heldLogged: boolean;
  /** A message still being written stays in line (it keeps later ones from overtaking it). */
  ready: boolean;
  message: Message | null;
}

/** One direction's waiting messages, oldest first. */
export interface Queue {
  direction: Direction;
  items: Waiting[];
}

/** A turn step: the decision for a waiting message, taken on the state the bus holds at that moment. */
export type Step = (state: State) => Decision;

/** What a turn step did. Outcomes are data: the loop decides what each means. */
export type Commit =
  /** Archived (delivered_at null) and the state moved on; `saved` false: the state write failed and must be retried before typing. */
  | { kind: 'committed'; record: ArchiveRecord; state: State; saved: boolean }
  /** The step, taken on the current state, does not deliver (another machine moved the turn first). */
  | { kind: 'refused'; decision: Exclude<Decision, { action: 'deliver' }> }
  /** Someone else took or removed it meanwhile. */
  | { kind: 'gone' }
  /** Its content changed since it was examined: it is back in line, to be examined again. */
  | { kind: 'changed' };

/** A message waiting for a person's approval (moderated mode, docs/protocol.md §9). */
export interface Approval {
  /** `<direction>/<name>`, as a person names it. */
  key: string;
  name: string;
  direction: Direction;
}

/** What start-up recovery found (docs/protocol.md §6): the state to run with, and a delivery cut short. */
export interface Recovered {
  state: State;
  /** An archived message never stamped delivered; `typed`: its paste may already have happened. */
  unfinished: { record: ArchiveRecord; typed: boolean } | null;
  notes: string[];
}

export { FencedError, fenceToken, LeaseHeldError, type Fence, type Holder, type Lease } from './lease.js';

export type Hint = { kind: 'messages'; direction?: string } | { kind: 'requests' };

export interface DeliveryBus {
  readonly events: EventLog;

  /** Take the writer's lease. Throws LeaseHeldError when a live holder has it; waits out a stale one. */
  lease(holder: Holder, onLost: (why: string) => void): Promise<Lease>;
  /**
   * Reconcile the stored state with the archive (docs/protocol.md §6) and put back what a crash left half-moved.
   * Needs the lease. Idempotent: a kill -9 during recovery is recovered at the next start.
   */
  recover(): Promise<Recovered>;
  /** The state as stored (the daemon keeps a copy between steps). */
  state(): State;

  /** Start delivering change hints. A hint may be lost or repeated; it never carries data. */
  watch(hint: (h: Hint) => void): Promise<void>;
  unwatch(): Promise<void>;
  /** Look at everything again (the timer behind the hints): what was missed is found here. */
  rescan(): Promise<void>;
  /**
   * Every direction's waiting messages, oldest first, examined. A message that can never be valid is
   * rejected on the way (moved aside with its reason and a `rejected` event); one still being written is
   * returned not ready, and rejected once it has stayed unchanged and invalid for settle_ms.
   */
  queues(): Promise<Queue[]>;
  /** Refuse a waiting message for good (its receiver is one the policy never allows). */
  reject(w: Waiting, reason: string): Promise<void>;
  /**
   * The turn step, atomic with respect to every other commit and update of this conversation: take `w`
   * out of its queue, decide on the current state, archive it (delivered_at null), save the new state.
   * Crash promise: killed at any point, recovery finds it in exactly one place (its queue or the archive),
   * and the state agrees with the archive or lags it by this one record.
   */
  commit(w: Waiting | Approval, step: Step, extra?: Record<string, unknown>): Promise<Commit>;
  /** Write the state again after `committed` with `saved: false` (before anything is typed). */
  saveState(): Promise<void>;
  /**
   * Change the state (docs/protocol.md §9: end, pause, resume, reminders, stalls), atomic with respect to commits and
   * other updates. Returns the new state.
   */
  update(change: (state: State) => State): Promise<State>;
  /** Stamp a delivered record (delivered_at, confirmed, redelivered). Once: a record already stamped keeps its stamp. */
  stamp(record: ArchiveRecord): Promise<void>;
  record(id: string): Promise<ArchiveRecord | null>;
  /**
   * Add daemon-owned fields to an archived record (a hook's receipt: `received`, `confirmed`), merged
   * into it atomically; never its ID, sender, receiver, content or stamp. False when there is no such record.
   */
  amend(id: string, fields: Amendment): Promise<boolean>;
  /**
   * How many of `agent`'s messages are stored and not yet delivered (waiting in its folders or in the
   * database, or waiting for approval): a turn it has answered already (issue 16: never two messages for one turn).
   */
  waitingFrom(agent: string): Promise<number>;

  /** Moderated mode: move the holder's message to the approval queue (one per sender). */
  moderate(w: Waiting): Promise<'queued' | 'held' | 'gone'>;
  approvals(): Promise<Approval[]>;
  /** A person refused it: moved aside with the reason. False when it is gone. */
  refuse(a: Approval, reason: string): Promise<boolean>;
  /** Read an approval's message again (it may have changed or become invalid since it was queued). */
  examineApproval(
    a: Approval,
  ): Promise<{ kind: 'valid'; message: Message } | { kind: 'gone' } | { kind: 'invalid'; reason: string }>;

  /** The person's message `request` made already, if it did (a daemon killed before answering it). */
  findPersonMessage(request: string): Promise<ArchiveRecord | null>;
  /** Archive a person's message under the next user_NNNN (the lease holder's; a person's messages have their own counter). */
  archivePersonMessage(make: (id: string) => ArchiveRecord): Promise<ArchiveRecord>;

  /** A person's requests, oldest first: new ones, and ones a killed daemon had taken but not answered. */
  requests(): Promise<string[]>;
  /**
   * Take a request so it can no longer be withdrawn, and read it. Null when it was withdrawn first, or
   * was answered already (a daemon killed after replying).
   */
  takeRequest(name: string): Promise<{ name: string; request: Request | { invalid: string } } | null>;
  /** Reply first, then the request goes: a crash in between never loses the answer. */
  answer(taken: string, reply: Reply): Promise<void>;
  /**
   * Hand a request to the daemon that can carry it out (a notice for another machine's agent, docs/protocol.md §10).
   * Nobody waits for its answer; answered requests nobody read are dropped after a minute.
   */
  forward(request: Request): Promise<void>;

  close(): Promise<void>;
}

export type { ApprovalView, ArchiveView, BusCheck, BusReader, HostView, Rejection } from './reader.js';

export interface BusClient {
  /** An agent's message, stored whole or not at all. Returns where it went (a file path, a row). */
  post(direction: Direction, message: Record<string, unknown>): Promise<string>;
  /** A person's request for the daemon; returns its name (requests are answered in the order made). */
  submit(request: Request): Promise<string>;
  /** The reply, once there is one (then removed). Null on timeout: the request stays queued. */
  awaitReply(name: string, timeoutMs: number): Promise<Reply | null>;
  /** Take an unanswered request back. False when the daemon has taken it already (its reply follows). */
  withdraw(name: string): Promise<boolean>;
}

/** What `up`, `doctor --repair` and `up --fresh` do to a conversation while no daemon runs. */
export interface BusAdmin {
  /** Create what a new conversation needs; write `state` if there is no state and no archive yet. */
  prepare(state: State): Promise<void>;
  /**
   * Run `fn` holding the writer's lease, so no daemon runs meanwhile (doctor --repair). Throws
   * LeaseHeldError when a live daemon holds it.
   */
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
  /** Rewrite the state. Only inside exclusive(). */
  overwriteState(state: State): Promise<void>;
  /** Move the conversation aside (kept, never deleted); returns where it went, or null if there was nothing. */
  setAside(): Promise<string | null>;
}

export type Bus = BusReader &
  BusClient &
  BusAdmin & {
    readonly kind: 'files' | 'postgres';
    /** The daemon's side; `log` gets what the bus has to say (rejections, folders replaced). */
    delivery(log?: Logger): DeliveryBus;
  };
