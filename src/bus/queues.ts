/**
 * The waiting messages: an agent posts one into its direction (Posting), the daemon reads every direction's
 * queue (Queues). A message waits until a turn step takes it (turns.ts), it is rejected, or the approval
 * queue takes it (approvals.ts). What the daemon makes of one (held? its turn?) is its own (daemon/scan.ts).
 */
import type { Direction } from '../config/config.js';
import type { Message } from '../core/message.js';

/** A message waiting in a direction, as the bus examined it. */
export interface Waiting {
  /** The bus's own handle for it: the same at every look while it waits, and no two waiting share one. */
  key: string;
  /** What a person calls it: the file name on the files bus. */
  name: string;
  direction: Direction;
  /** performance.now() when this process first saw it (its latency's start); one put back in line is seen afresh. */
  firstSeen: number;
  /** A message still being written stays in line (it keeps later ones from overtaking it). */
  ready: boolean;
  message: Message | null;
}

/** One direction's waiting messages, oldest first. */
export type Queue = { direction: Direction; items: Waiting[] };

/** The daemon's side of the waiting messages: the daemon, its queue scan, the conductor, turn ends. */
export interface Queues {
  /**
   * Every direction this daemon delivers (on the PostgreSQL bus: the directions whose receiver is on its
   * machine), its waiting messages oldest first, examined. A message that can never be valid is rejected
   * on the way (moved aside with its reason and a `rejected` event); one still being written is returned
   * not ready, and rejected once it has stayed unchanged and invalid for settle_ms. A message another
   * process posts meanwhile shows at a later call (its hint, or the next rescan, says when to look).
   * On the PostgreSQL bus it also reads the state again (state() then says what is stored).
   */
  queues(): Promise<Queue[]>;
  /**
   * Refuse a waiting message for good (its receiver is one the policy never allows, its expires_at has
   * passed): moved aside with the reason, and a `rejected` event. A message taken or removed meanwhile is
   * left alone, with no event. Killed mid-way it is in its queue or among the rejections, never both and
   * never neither (the files bus writes a missing reason at the next start).
   */
  reject(w: Waiting, reason: string): Promise<void>;
  /**
   * How many of `agent`'s messages are stored and not yet delivered (waiting in its folders or in the
   * database, or waiting for approval): a turn it has answered already, so an automatic reply is never
   * posted for a turn it answered itself. It counts a file written a moment ago, before its hint came.
   */
  waitingFrom(agent: string): Promise<number>;
  /**
   * The agents' messages this side rejected since the last call, each once, oldest first (a file that can
   * never be valid, a stored body that is not a message, `reject()`): their senders are to be told why. Not a
   * person's refusal (Moderation.refuse: its request tells the sender). In memory only: a daemon killed before
   * telling does not tell after its restart (the rejection itself is kept with its reason).
   */
  takeRejected(): Rejected[];
}

/** An agent's message rejected on the way: whom to tell (its direction's sender), and why. */
export interface Rejected {
  direction: Direction;
  /** Its name as its sender wrote it: the file's name (or the post's, in the database). */
  file: string;
  reason: string;
}

/** What became of a post: stored (and under which name), or refused before anything was stored. */
export type Posted =
  | {
      kind: 'posted';
      /**
       * The post's own name: the archive record's `source_file` once it is delivered, the `file` of its
       * rejection if it is rejected — what `baton post --wait` follows.
       */
      name: string;
      /** Where it went, for a person: a file's path, or the conversation and row. */
      where: string;
    }
  | { kind: 'refused'; reason: string }
  /**
   * The database went away after the message was sent and did not come back while the post kept trying
   * (30 s): it may or may not have been stored, under `name` (the archive's `source_file` if it was).
   */
  | { kind: 'uncertain'; name: string; reason: string };

/** An agent's side: `baton post`, the MCP server's post, a final reply posted for an agent. */
export interface Posting {
  /**
   * An agent's message into a direction, stored whole or not at all; any number of processes may post at
   * once, none overwriting another. Checked first as the daemon will (bytes against inbox.max_bytes, a valid
   * message for its direction): one it would reject for good is refused with its reason, nothing stored.
   * Every post carries a key of its own (the file name; in the database a relay key kept for good), so a
   * store retried after an answer that never came (the server died after its commit) is never stored twice.
   */
  post(direction: Direction, message: Record<string, unknown>): Promise<Posted>;
}
