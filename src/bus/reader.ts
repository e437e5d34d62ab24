/**
 * The Bus's read side: what status, log, doctor and the dashboard read. Reads only; never blocks a writer
 * (a reader may see a step half-way on a bus that has no transactions, and says what it saw).
 */
import type { ArchiveRecord } from '../core/record.js';
import type { State } from '../core/state.js';
import type { Holder } from './lease.js';
import type { EventSource } from './events.js';

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

/** One machine of a conversation (docs/protocol.md §10): is its daemon alive, since when, which agents it runs. */
export interface HostView {
  host: string;
  alive: boolean;
  holder: Holder | null;
  /** The daemon's last heartbeat (the files bus has none: null). */
  last_heartbeat: string | null;
  agents: string[];
}

export interface BusReader {
  /** Where the conversation lives, for a person (a folder, or a database and conversation name). */
  readonly where: string;
  readonly events: EventSource;
  /** The stored state; null when there is none yet. Throws StateError when it is corrupt. */
  readState(): Promise<State | null>;
  /** Messages waiting per direction (held out of turn, or not taken yet). */
  waitingCounts(): Promise<Record<string, number>>;
  rejectedCount(): Promise<number>;
  /** Approvals waiting, as `<direction>/<name>`. */
  approvalKeys(): Promise<string[]>;
  /** Every archived record (agents' and a person's), unsorted. */
  records(): Promise<ArchiveRecord[]>;
  /** Every archived record's ID (agents' and a person's), unsorted: cheaper than records(). */
  recordIds(): Promise<string[]>;
  /** The newest `limit` rejections with why each was refused, and how many there are. */
  rejections(limit: number): Promise<{ count: number; items: Rejection[] }>;
  /** Approvals waiting, with what they say (content cut at `cap` characters), in order. */
  approvalsView(cap: number): Promise<ApprovalView[]>;
  record(id: string): Promise<ArchiveRecord | null>;
  /** What the archive says the state is: the one derivation recovery and doctor share. */
  archiveView(): Promise<ArchiveView>;
  /** Is a live daemon holding the writer's lease? */
  daemon(): Promise<{ running: boolean; pid: number | null; holder: Holder | null }>;
  /** Every machine of the conversation and its daemon (the files bus: this machine only). */
  hosts(): Promise<HostView[]>;
  /** Requests waiting for a daemon. */
  requestsWaiting(): Promise<number>;
  /** Checks only this kind of bus knows (doctor). */
  checks(daemonRunning: boolean): Promise<BusCheck[]>;
}
