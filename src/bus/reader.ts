/** The Bus's read side: what status, log, doctor and the dashboard read, in parts by who reads what. */
import { formatId } from '../core/ids.js';
import type { ArchiveRecord } from '../core/record.js';
import type { State } from '../core/state.js';
import { initialState } from '../core/turns.js';
import type { ListedMachine } from './directory.js';
import type { Holder, LeaseHolding } from './lease.js';
import type { EventFeed } from './events.js';

/** One doctor check a bus adds (claims left over, database schema, …). */
export interface BusCheck {
  name: string;
  level: 'ok' | 'warn' | 'fail';
  detail: string;
}

/** A message refused (docs/protocol.md §6): where it is kept, and why. */
export interface Rejection {
  stored_as: string;
  file: string | null;
  reason: string | null;
  direction: string | null;
  rejected_at: string | null;
}

export interface ApprovalView {
  file: string;
  from: string;
  to: string;
  type: string | null;
  subject: string | null;
  content: string;
}

export interface ArchiveView {
  /** The highest archived counter (0: empty archive). */
  n: number;
  last: ArchiveRecord | null;
  /** The state the archive implies. */
  state: State;
  /** Set when IDs are not exactly 1..n. */
  gaps: string | null;
}

/**
 * What an archive says, from its highest ID `n`, its record count and last record: the state it implies (the
 * last message awaits a reply, its receiver holds the turn) and whether IDs have gaps. Both buses' recovery
 * and doctor share it.
 */
export function archiveViewOf(n: number, count: number, last: ArchiveRecord | null, firstTurn: string): ArchiveView {
  const gaps = count !== n ? `archive has gaps: ${count} records for IDs up to ${formatId(n)}` : null;
  if (!last) return { n, last, state: initialState(firstTurn), gaps };
  const state = {
    current_turn: last.receiver,
    last_message_id: last.id,
    message_counter: n,
    pending_reply_to: last.id,
  };
  return { n, last, state, gaps };
}

/** One machine of a conversation (docs/protocol.md §10); the files bus has no heartbeat (null). */
export type HostView = ListedMachine;

/** What `baton status`, the dashboard's status and the demo agent read: the state and what waits. */
export interface Status {
  /** Where the conversation lives, for a person (a folder, or a database and conversation name). */
  readonly where: string;
  /** The stored state; null when there is none yet. Throws StateError when it is corrupt. */
  readState(): Promise<State | null>;
  /** Messages waiting per direction (held out of turn, or not taken yet). */
  waitingCounts(): Promise<Record<string, number>>;
  rejectedCount(): Promise<number>;
  /** Files claimed from this machine's folders not yet stored for good (the PostgreSQL relay's); 0 on the files bus. */
  relaying(): Promise<number>;
  /** Approvals waiting, as `<direction>/<name>`. */
  approvalKeys(): Promise<string[]>;
}

export type DaemonStatus = { running: boolean; pid: number | null; holder: Holder | null };

/** Who runs the conversation: status, doctor, `up` and `down` waiting for a daemon, a request with none. */
export interface Liveness {
  /** Is a live daemon holding the writer's lease (PostgreSQL: this machine's)? A moment's answer. */
  daemon(): Promise<DaemonStatus>;
  /** Every machine of the conversation and its daemon (the files bus: this machine only). */
  hosts(): Promise<HostView[]>;
  /**
   * Who holds the writer's lease (on the PostgreSQL bus: this machine's), proven by the storage: what a
   * daemon's own take-over decides on, for a command that must refuse like it (exit 3, naming the holder).
   * May watch the holder up to the stale time when a moment's look cannot tell (PostgreSQL: ~6 s at most).
   */
  leaseHolder(): Promise<LeaseHolding>;
}

/** The archive as readers read it: `baton log`, `show`, `post --wait`, the transcript, doctor. */
export interface Archive {
  /** Every archived record (agents' and a person's), unsorted. */
  records(): Promise<ArchiveRecord[]>;
  /** Every archived record's ID (agents' and a person's), unsorted: cheaper than records(). */
  recordIds(): Promise<string[]>;
  /** An archived record as stored now (written whole: never half of one); null when there is none. */
  record(id: string): Promise<ArchiveRecord | null>;
  /** What the archive says the state is: the one derivation recovery and doctor share. */
  archiveView(): Promise<ArchiveView>;
}

/** What the dashboard lists on request, and `post --wait` looks through for its own message. */
export interface Listings {
  /** The newest `limit` rejections with why each was refused, and how many there are. */
  rejections(limit: number): Promise<{ count: number; items: Rejection[] }>;
  /** Approvals waiting, with what they say (content cut at `cap` characters), in order. */
  approvalsView(cap: number): Promise<ApprovalView[]>;
}

/** What only doctor asks. */
export interface Checkup {
  /** Requests waiting for a daemon. */
  requestsWaiting(): Promise<number>;
  /** Checks only this kind of bus knows (claims left over, the database's schema, …). */
  checks(daemonRunning: boolean): Promise<BusCheck[]>;
}

/**
 * The read side, whole: reads only, never blocking a writer. On a bus without transactions (the files
 * bus) a reader may see a step half-way — a message gone from its queue and not yet archived — and says
 * what it saw; it never changes anything.
 */
export type BusReader = Status & Liveness & Archive & Listings & Checkup & EventFeed;
