/**
 * Conversation control (docs/protocol.md §9) as pure functions: when a conversation ends by itself, and when the
 * silent turn holder is reminded or marked stalled. The daemon supplies the clock and does the typing.
 */
import type { BlockState } from './blocked.js';

export const FINISH_REASONS = ['max_turns', 'stop_phrase', 'max_duration', 'ended', 'max_tokens'] as const;
export type FinishReason = (typeof FINISH_REASONS)[number];

/** Who paused a conversation when a person did not (`baton pause` sets no reason). */
export const PAUSE_REASONS = ['loop', 'budget'] as const;
type PauseReason = (typeof PAUSE_REASONS)[number];

export interface Paused {
  at: string;
  reason?: PauseReason | undefined;
  /** The messages the loop guard paused on; a budget reached (its key path), whose, how much spent of how much. */
  evidence?: string[] | undefined;
  budget?: string | undefined;
  agent?: string | undefined;
  spent_usd?: number | undefined;
  max_usd?: number | undefined;
}

export interface Finished {
  reason: FinishReason;
  at: string;
  /** Why a person ended it (`baton end --reason`). */
  note?: string | undefined;
}

/**
 * The state keys this module reads (all optional: older state files have none of them). `turn_started_at`:
 * the last delivery, a resume or the daemon's first start; `started_at`: the conversation's (or its last
 * resume's) start; `turns_base`: message_counter at the last resume (max_turns counts from there). While the
 * holder waits at a dialog (`blocked`, blocked.ts) the clocks stand still, and the time it lasted counts for
 * nothing.
 */
interface Progress extends BlockState {
  message_counter: number;
  finished?: Finished | null | undefined;
  turns_base?: number | undefined;
  nudges?: number | undefined;
  stalled?: boolean | undefined;
  paused?: Paused | null | undefined;
}

/** The termination and reminder rules of config.json's `turns` (config/ checks them; the types match). */
interface Rules {
  max_turns: number;
  stop_phrase?: string | undefined;
  stop_from?: readonly string[] | undefined;
  max_duration_s: number;
  timeout_s: number;
  max_nudges: number;
}

/** How many messages the bundled demo agents' script has (demo/script.ts): a demo ends after them. */
export const DEMO_TURNS = 8;

/** The rules in force: a demo (`baton up --demo`) ends after its script, unless the config sets a max_turns. */
export const rulesFor = <T extends Pick<Rules, 'max_turns'>>(turns: T, state: { demo?: boolean | undefined }): T =>
  state.demo && turns.max_turns === 0 ? { ...turns, max_turns: DEMO_TURNS } : turns;

/** Does delivering this message end the conversation? (The message itself is delivered.) */
export function endsWith(p: Progress, msg: { from: string; content: string }, rules: Rules): FinishReason | null {
  if (rules.max_turns > 0 && p.message_counter - (p.turns_base ?? 0) >= rules.max_turns) return 'max_turns';
  const fromCounts = !rules.stop_from || rules.stop_from.includes(msg.from);
  if (rules.stop_phrase && fromCounts && msg.content.includes(rules.stop_phrase)) return 'stop_phrase';
  return null;
}

/** When max_duration_s runs out (ms since the epoch), or null when it never does. */
export function durationEndsAt(p: Progress, rules: Rules): number | null {
  if (rules.max_duration_s <= 0 || !p.started_at || p.finished || p.blocked) return null;
  return Date.parse(p.started_at) + (p.blocked_ms ?? 0) + rules.max_duration_s * 1000;
}

export type NudgePlan =
  | { action: 'none'; at: number | null }
  /** Send reminder number `n` (1-based) now. */
  | { action: 'nudge'; n: number }
  | { action: 'stall' };

/**
 * Reminder k (1-based) is due timeout_s × (2^k − 1) after the turn began (gaps T, 2T, 4T…); after max_nudges
 * and one more gap the holder is stalled. `at`: when to look again. Time at a dialog does not count, and while
 * the holder waits at one nothing is due (`at` null: its end plans again).
 */
export function nudgePlan(p: Progress, nowMs: number, rules: Rules): NudgePlan {
  if (rules.timeout_s <= 0 || p.finished || p.paused || p.stalled || p.blocked || !p.turn_started_at)
    return { action: 'none', at: null };
  const sent = p.nudges ?? 0;
  const due = Date.parse(p.turn_started_at) + (p.turn_blocked_ms ?? 0) + rules.timeout_s * 1000 * (2 ** (sent + 1) - 1);
  if (nowMs < due) return { action: 'none', at: due };
  return sent < rules.max_nudges ? { action: 'nudge', n: sent + 1 } : { action: 'stall' };
}

/** The state after a delivered turn step (`next` from decide()): the new turn's clock starts, no reminders yet. */
export function turnTaken<S extends Progress, T extends object>(state: S, next: T, now: string): S & T {
  const fresh = { turn_started_at: now, nudges: 0, stalled: false };
  // (Written only once a block happened: older states and their readers never see the key.)
  return { ...state, ...next, ...fresh, ...(state.turn_blocked_ms ? { turn_blocked_ms: 0 } : {}) };
}
