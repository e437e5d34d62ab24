/**
 * The loop guard (docs/protocol.md §12, `turns.loop_guard`): does an unattended conversation go in circles?
 * Pure: the last few archived messages in, a verdict out; the daemon (daemon/loop-guard.ts) pauses.
 *
 * A message is *stale* when it adds nothing: an acknowledgement ("Thanks!") or a near-copy of one shortly
 * before it (word-pair similarity ≥ `similarity`). The conversation loops when the last `window` messages are
 * all stale; one never pauses (real conversations end with an "Agreed, thanks"). Measured (docs/protocol.md
 * §12): the demo and end-to-end conversations peak at 0.50 similarity and two acknowledgements in a row;
 * thank-you loops are all acknowledgements, and a status said again in other words scores 0.71 and above.
 */
import { parseId } from './ids.js';

export interface LoopRules {
  /** How many messages in a row must add nothing. */
  window: number;
  /** Word-pair similarity (0–1) from which a message counts as a repeat of an earlier one. */
  similarity: number;
}

export const LOOP_DEFAULTS: LoopRules = { window: 4, similarity: 0.6 };

/** The rules `turns.loop_guard` gives: true (the defaults), false (off), or its own numbers. */
export function loopRulesOf(guard: boolean | Partial<LoopRules>): LoopRules | null {
  if (guard === false) return null;
  return guard === true ? LOOP_DEFAULTS : { ...LOOP_DEFAULTS, ...guard };
}

/** One archived agent message, as the guard reads it. */
export type Said = { id: string; sender: string; content: string };

type LoopKind = 'acknowledgements' | 'repeats' | 'no_progress';

export type LoopVerdict = { loop: false } | { loop: true; kind: LoopKind; evidence: string[] };

/** Longer than this (words), a message is never only an acknowledgement. */
const ACK_MAX_WORDS = 30;

// What agents say when they only acknowledge, thank or sign off (measured on thank-you loops of the three
// clients' default models: every message of them has one of these and no question).
const ACK =
  /\b(thanks?|thank you|thx|welcome|glad|appreciated?|sounds good|agreed|got it|noted|likewise|you too|cheers|perfect|acknowledged|understood|will do|my pleasure|happy to help|no problem|anytime|goodbye|bye|take care|same here|great (work|job|collaboration|working))\b/i;

/** The words of a text, lower-cased: letters and digits of any script (IDs like msg_0003 stay one word). */
const words = (text: string): string[] => text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];

/** An acknowledgement: short, an acknowledging phrase, no question, no code. */
export function isAcknowledgement(text: string): boolean {
  if (text.includes('?') || text.includes('`')) return false;
  const n = words(text).length;
  return n > 0 && n <= ACK_MAX_WORDS && ACK.test(text);
}

function pairs(text: string): Set<string> {
  const w = words(text);
  if (w.length < 2) return new Set(w.length ? w : [text.trim()]);
  const out = new Set<string>();
  for (let i = 1; i < w.length; i++) out.add(`${w[i - 1]} ${w[i]}`);
  return out;
}

/** How alike two texts are, 0–1: the Dice coefficient of their word pairs (order within a pair counts). */
export function similarity(a: string, b: string): number {
  const pa = pairs(a);
  const pb = pairs(b);
  let both = 0;
  for (const p of pa) if (pb.has(p)) both++;
  return (2 * both) / (pa.size + pb.size);
}

/**
 * `recent`: the conversation's last agent messages, oldest first (up to 2 × window: the earlier half is
 * what a repeat is compared with). `since`: the number of the last message a person has already seen the
 * guard pause on (a resume): the window lies after it, so resuming never trips on the same messages.
 */
export function loopCheck(recent: readonly Said[], since: number, rules: LoopRules): LoopVerdict {
  const n = Math.max(2, rules.window);
  if (recent.length < n) return { loop: false };
  const start = recent.length - n;
  const win = recent.slice(start);
  if (win.some((m) => (parseId(m.id) ?? 0) <= since)) return { loop: false };
  let acks = 0;
  let repeats = 0;
  for (const [i, m] of win.entries()) {
    const earlier = recent.slice(Math.max(0, start + i - n), start + i);
    const ack = isAcknowledgement(m.content);
    const repeat = earlier.some((e) => similarity(e.content, m.content) >= rules.similarity);
    if (!ack && !repeat) return { loop: false };
    if (ack) acks++;
    if (repeat) repeats++;
  }
  const kind: LoopKind = acks === n ? 'acknowledgements' : repeats === n ? 'repeats' : 'no_progress';
  return { loop: true, kind, evidence: win.map((m) => m.id) };
}
