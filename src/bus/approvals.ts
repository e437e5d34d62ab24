/**
 * Moderated mode's approval queue (docs/protocol.md §9): the turn holder's valid message waits there, no ID
 * and the state unchanged, until a person approves it (its turn step is committed from there, turns.ts) or
 * refuses it. One per sender: the next waits in its queue. Writes need the writer's lease.
 */
import type { Direction } from '../config/config.js';
import type { Message } from '../core/message.js';
import type { Waiting } from './queues.js';

/** A message waiting for a person's approval. */
export interface Approval {
  /** `<direction>/<name>`, as a person names it. */
  key: string;
  name: string;
  direction: Direction;
}

/** What reading an approval's message again found. */
export type ApprovalContent =
  | { kind: 'valid'; message: Message }
  | { kind: 'gone' }
  | { kind: 'invalid'; reason: string };

/** The approval queue: the pass moderates, a person's approve and reject work it, the conductor looks. */
export interface Moderation {
  /**
   * Move the turn holder's waiting message to the approval queue (`queued`); `held` when its sender has one
   * there (it stays in its queue); `gone` when taken or removed meanwhile. Atomic with respect to other moves
   * and commits: never two approvals for one sender. Killed mid-way, the message is in one of the two places
   * (the files bus finishes a move cut short at the next look, rather than leave a second copy to approve).
   */
  moderate(w: Waiting): Promise<'queued' | 'held' | 'gone'>;
  /** The approvals waiting that this daemon delivers (its agents receive them), in order. Reads only. */
  approvals(): Promise<Approval[]>;
  /** A person refused it: moved aside with its reason. False when gone (never twice); a kill leaves it in one place. */
  refuse(a: Approval, reason: string): Promise<boolean>;
  /** Read an approval's message again (it may have changed or become invalid since it was queued). Reads only. */
  examineApproval(a: Approval): Promise<ApprovalContent>;
}
