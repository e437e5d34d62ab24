/**
 * Why a direction's waiting messages have not gone, as `baton status` tells it: from the same rules the
 * daemon applies (turns.ts: rejected, held out of turn, paused, finished; then, in turn, the approval
 * queue, whose machine delivers it, whether a daemon runs, and whether the receiver's pane can take it
 * now) — so status never blames the pane for a file that is simply out of turn.
 */
import { decide, holdText, whyHeld, type Rules, type TurnState } from './turns.js';
import type { WaitReason } from './wait-reason.js';

export type { WaitReason };

/**
 * What only the caller can look up. `daemon`: one runs on this machine; `remote`: the receiver's other
 * machine (null: this one), and whether a daemon is alive there; `problem`: why its pane cannot be typed
 * into now; `approval`: the sender has a message awaiting one.
 */
export interface WaitFacts {
  daemon: boolean;
  remote: { host: string; alive: boolean } | null;
  problem: string | null;
  approval: boolean;
}

export function whyWaiting(
  state: TurnState,
  d: { from: string; to: string },
  rules: Rules,
  facts: WaitFacts,
): WaitReason {
  const decision = decide(state, d, rules);
  if (decision.action === 'reject') return { reason: 'not_allowed', detail: decision.reason };
  const held = whyHeld(state, d.from);
  if (held?.kind === 'finished') return { reason: 'finished', finished: held.reason };
  if (held?.kind === 'paused') return { reason: 'paused', since: held.since };
  if (held) return { reason: 'out_of_turn', turn: held.turn };
  if (facts.approval) return { reason: 'awaiting_approval' };
  if (facts.remote)
    return { reason: 'other_machine', receiver: d.to, host: facts.remote.host, daemon: facts.remote.alive };
  if (!facts.daemon) return { reason: 'no_daemon' };
  if (facts.problem) return { reason: 'receiver_not_ready', receiver: d.to, detail: facts.problem };
  return { reason: 'in_turn' };
}

/** A reason in words, for `baton status` (the daemon's own words where it logs one). */
export function waitText(w: WaitReason, d: { from: string; to: string }): string {
  switch (w.reason) {
    case 'not_allowed':
      return `not allowed (${w.detail}): the daemon rejects it`;
    case 'finished':
      return holdText({ kind: 'finished', reason: w.finished }, d.from);
    case 'paused':
      return holdText({ kind: 'paused', since: w.since }, d.from);
    case 'out_of_turn':
      return holdText({ kind: 'out_of_turn', turn: w.turn }, d.from);
    case 'awaiting_approval':
      return `${d.from} already has a message waiting for approval (baton approve / baton reject)`;
    case 'other_machine':
      return w.daemon
        ? `${w.receiver} runs on ${w.host}: its daemon delivers it ("baton status" there shows its pane)`
        : `${w.receiver} runs on ${w.host}, where no daemon is running ("baton up" there starts it)`;
    case 'no_daemon':
      return 'its turn, but no daemon is running ("baton up" starts it)';
    case 'receiver_not_ready':
      return `${w.receiver}: ${w.detail}`;
    case 'in_turn':
      return 'its turn: the daemon delivers it next';
  }
}
