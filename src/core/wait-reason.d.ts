/**
 * Why a direction's waiting messages have not gone (core/waiting.ts). Declarations only: `baton status --json`
 * and the dashboard (web/) share this union without compiling the turn rules.
 */

/** Why the messages of one direction wait (the first of its reasons, in the order the daemon meets them). */
export type WaitReason =
  /** The policy never allows it: the daemon rejects it (docs/protocol.md §4). */
  | { reason: 'not_allowed'; detail: string }
  | { reason: 'finished'; finished: string }
  | { reason: 'paused'; since: string }
  | { reason: 'out_of_turn'; turn: string }
  /** Moderated mode: its sender already has a message waiting for a person's approval. */
  | { reason: 'awaiting_approval' }
  /** In turn, for another machine's daemon to deliver (docs/protocol.md §10); is a daemon alive there? */
  | { reason: 'other_machine'; receiver: string; host: string; daemon: boolean }
  /** In turn, and no daemon runs here to deliver it. */
  | { reason: 'no_daemon' }
  /** In turn; the receiver's pane cannot take it now, and why (pane missing, busy, its box not empty…). */
  | { reason: 'receiver_not_ready'; receiver: string; detail: string }
  /** In turn, and nothing stands in its way: it goes on the daemon's next pass. */
  | { reason: 'in_turn' };
