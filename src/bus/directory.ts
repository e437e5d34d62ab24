/**
 * The read part that looks across conversations: every conversation one store holds, with its machines —
 * `baton ls --bus URL`, run from any folder, with no config to name one conversation. Only the PostgreSQL
 * bus has one (a database holds many conversations, each on several machines); the files bus's conversations
 * are folders, which the machine's registry lists. Reads only: it never makes the schema, takes a lease or
 * writes a row, so a look at a database never changes what its daemons see.
 */
import type { State } from '../core/state.js';
import type { Holder } from './lease.js';

/** One machine of a listed conversation: its agents, and the daemon that holds (or last held) its lease. */
export interface ListedMachine {
  host: string;
  /** Its daemon's lease session holds the lock and its heartbeat is fresh (the database's word). */
  alive: boolean;
  /** The daemon of its lease (pid, host, started_at), alive or the last one; null: no lease ever, or released. */
  holder: Holder | null;
  /** The lease's last heartbeat (ISO), or null when this machine never took one. */
  last_heartbeat: string | null;
  /** The agents the conversation's recorded config puts on this machine. */
  agents: string[];
}

/** One conversation as the store keeps it: the facts; what they mean for a person is the caller's. */
export interface ListedConversation {
  name: string;
  /** Set aside by `baton up --fresh` (kept as `<name>@<time>`): no daemon serves it again. */
  set_aside: boolean;
  /** Its state; null when the stored one does not parse (`problem` says why). */
  state: State | null;
  problem: string | null;
  /** What its machines agreed on (config/fingerprint.ts), as the first daemon recorded it, where and when; or null. */
  config: { fingerprint: Record<string, unknown>; host: string | null; at: string | null } | null;
  created_at: string;
  /** Messages stored and not delivered yet, by direction (held out of turn, or not taken yet). */
  waiting: Record<string, number>;
  /** Messages waiting for a person's approval. */
  approvals: number;
  rejected: number;
  machines: ListedMachine[];
}

export interface StoreListing {
  /** The store, for a person (its URL, password hidden, and schema). */
  where: string;
  /** The schema's version; null when there is no baton schema there (then no conversation either). */
  schema_version: number | null;
  /** The store's clock when it answered (ISO): how long a turn has been held is measured against it. */
  now: string;
  conversations: ListedConversation[];
}

export interface Directory {
  /** Every conversation, by name. Reads only. */
  list(): Promise<StoreListing>;
}
