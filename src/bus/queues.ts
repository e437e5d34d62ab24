/**
 * The waiting messages: an agent posts one into its direction (Posting: `baton post`, the MCP server, a
 * final reply posted for it), and the daemon reads every direction's queue (Queues). A message waits
 * until a turn step takes it (turns.ts), it is rejected, or a person's approval queue takes it
 * (approvals.ts). What the daemon makes of a waiting message — whether it logged it held, when its turn
 * came — is the daemon's own (daemon/scan.ts), kept by `key`.
 */
import type { Direction } from '../config/config.js';
import type { Message } from '../core/message.js';

/** A message waiting in a direction, as the bus examined it. */
export interface Waiting {
  /**
   * The bus's own handle for it: one message's key is the same at every look while it waits, and no two
   * messages waiting in a conversation share one.
   */
  key: string;
  /** What a person calls it: the file name on the files bus. */
  name: string;
  direction: Direction;
  /**
   * performance.now() when this process first saw it (its latency is measured from here); a message put
   * back in line (a turn step that found it changed) is seen afresh.
   */
  firstSeen: number;
  /** A message still being written stays in line (it keeps later ones from overtaking it). */
  ready: boolean;
  message: Message | null;
}

/** One direction's waiting messages, oldest first. */
export interface Queue {
  direction: Direction;
  items: Waiting[];
}

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
   * The agents' messages this side rejected since the last call, each once, oldest first — whatever
   * rejected them: a file that can never be valid, a stored body that is not a message, `reject()`. Their
   * senders are to be told why. A person's refusal of a pending message (Moderation.refuse) is not among
   * them: the request that refused it tells the sender itself. Kept in memory only: a daemon killed before
   * it told them does not tell them after its restart (the rejection itself is kept with its reason).
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
   * An agent's message into a direction, stored whole or not at all (a reader never sees half of it; a
   * crash leaves nothing or all of it). Any number of processes may post at once: each message is stored
   * under a name of its own, none overwrites another. It is checked first as the daemon will check it (the
   * bytes stored against inbox.max_bytes, a valid message for its direction): one the daemon would reject
   * for good is refused with the daemon's reason, and nothing is stored.
   *
   * Every post carries a key of its own (on the files bus, its file name; in the database, a relay key kept
   * for good, as the relay's are): a store retried after an answer that never came — the server died right
   * after its commit — is recognised, and the message is never stored twice.
   */
  post(direction: Direction, message: Record<string, unknown>): Promise<Posted>;
}
