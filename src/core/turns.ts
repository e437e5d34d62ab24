/**
 * The turn rules (docs/protocol.md §4), as one pure function: the conversation state and an incoming message's
 * (from, to) in, a decision out. No disk, no tmux, no clock — the daemon is the shell around this.
 */
import type { Finished, Paused } from './conversation.js';
import { formatId } from './ids.js';

export const POLICIES = ['alternate', 'round_robin', 'handoff'] as const;
export type Policy = (typeof POLICIES)[number];

/** The four keys docs/protocol.md §4 fixes, and more (state.ts); a type, so a TurnState is also a State. */
export type TurnState = {
  current_turn: string;
  last_message_id: string | null;
  message_counter: number;
  pending_reply_to: string | null;
  /** Set when the conversation has ended (docs/protocol.md §9): nothing more is delivered. */
  finished?: Finished | null | undefined;
  /** Set by `baton pause`: deliveries wait, and nobody is told to stop (unlike `end`). */
  paused?: Paused | null | undefined;
  /** turns.closing after a finish: the agent asked for the outcome, and the outcome's ID once it came. */
  closing?: Closing | null | undefined;
};

/** The closing turn (docs/protocol.md §12): `asked` once its prompt was typed, `outcome` its message's ID. */
type Closing = { agent: string; at: string; asked: boolean; outcome?: string | null | undefined };

/** A finished conversation takes only the closing agent's outcome (type `outcome`), once, whoever held the turn. */
export const closingOpen = (state: TurnState, from: string, type: string | undefined): boolean =>
  Boolean(state.finished) && type === 'outcome' && state.closing?.agent === from && !state.closing.outcome;

export interface Rules {
  policy: Policy;
  /** Agents in config order. */
  agents: readonly string[];
}

export type Decision =
  | { action: 'deliver'; id: string; reply_to: string | null; to: string; next: TurnState }
  | { action: 'hold'; reason: string }
  | { action: 'reject'; reason: string };

export function initialState(firstTurn: string): TurnState {
  return { current_turn: firstTurn, last_message_id: null, message_counter: 0, pending_reply_to: null };
}

/** Who must receive a message from `from`, or null when the policy lets the speaker choose. */
export function expectedReceiver(from: string, rules: Rules): string | null {
  if (rules.policy === 'handoff') return null;
  const i = rules.agents.indexOf(from);
  return i < 0 ? null : (rules.agents[(i + 1) % rules.agents.length] ?? null);
}

/** The ordered (from, to) pairs the policy can ever deliver: the folders a conversation needs. */
export function allowedPairs(rules: Rules): [string, string][] {
  return rules.agents.flatMap((from) =>
    rules.agents
      .filter((to) => to !== from && (expectedReceiver(from, rules) ?? to) === to)
      .map((to): [string, string] => [from, to]),
  );
}

/** Why a message the policy allows must wait in its folder now: what `decide` holds it for, as data. */
export type Hold =
  | { kind: 'finished'; reason: string }
  | { kind: 'paused'; since: string }
  | { kind: 'out_of_turn'; turn: string };

/** Why a message from `from` must wait now (the conversation's state only), or null when it is its turn. */
export function whyHeld(state: TurnState, from: string, type?: string): Hold | null {
  if (closingOpen(state, from, type)) return null;
  if (state.finished) return { kind: 'finished', reason: state.finished.reason };
  if (state.paused) return { kind: 'paused', since: state.paused.at };
  if (state.current_turn !== from) return { kind: 'out_of_turn', turn: state.current_turn };
  return null;
}

/** A hold in words: what the daemon logs with a `held` event, and `baton status` shows. */
export function holdText(h: Hold, from: string): string {
  if (h.kind === 'finished') return `the conversation has finished (${h.reason}); "baton resume" continues it`;
  if (h.kind === 'paused') return 'the conversation is paused; "baton resume" continues it';
  return `it is ${h.turn}'s turn, not ${from}'s`;
}

export function decide(state: TurnState, msg: { from: string; to: string; type?: string }, rules: Rules): Decision {
  const { from, to } = msg;
  if (!rules.agents.includes(from)) return { action: 'reject', reason: `unknown sender "${from}"` };
  if (!rules.agents.includes(to)) return { action: 'reject', reason: `unknown receiver "${to}"` };
  if (from === to) return { action: 'reject', reason: `${from} cannot send to itself` };

  // A message that can never be right is rejected whoever holds the turn, so it does not sit held forever.
  const expected = expectedReceiver(from, rules);
  if (expected !== null && to !== expected)
    return { action: 'reject', reason: `under the ${rules.policy} policy ${from} must send to ${expected}, not ${to}` };

  const held = whyHeld(state, from, msg.type);
  if (held) return { action: 'hold', reason: holdText(held, from) };

  const counter = state.message_counter + 1;
  const id = formatId(counter);
  return {
    action: 'deliver',
    id,
    reply_to: state.pending_reply_to,
    to,
    next: { current_turn: to, last_message_id: id, message_counter: counter, pending_reply_to: id },
  };
}
