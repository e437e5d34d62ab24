/**
 * Text on its way into one pane, as data. Each arrow is a step of daemon/typing.ts; a delivery
 * (daemon/courier.ts) is a committed message and its typing, between the turn step's state write and the
 * stamp. A kill -9 anywhere is covered by docs/protocol.md §6's crash rule, applied at start-up:
 *
 *   (turn step committed) ──▶ committed ──paste──▶ pasted ──Enter──▶ entered ──submit seen──▶ confirmed (──stamp──▶)
 *
 * `typed`: this text may already be in a pane (a crash or timeout during a paste, a pane gone or that never
 * showed it): every later paste says "(redelivered)", never typed twice silently. A failed step goes back only
 * as far as it must: a lost Enter is pressed again, a lost paste pasted again (flagged), a stamp stamped again.
 */
import type { ArchiveRecord, Confirmation } from './record.js';

/**
 * The pane a paste went into: id, first process, tmux server. An Enter goes to that very pane or nowhere: the
 * next tmux server reuses pane ids (an Enter once landed in the other agent's pane).
 */
export interface PaneRef {
  id: string;
  pid: number;
  server: string;
}

/** When the message was first seen, and when its turn came (the time between was spent held). */
export type Timing = { firstSeen: number; turnSince: number };

interface Keyed {
  typed: true;
  /** This paste carried "(redelivered)". */
  redelivered: boolean;
  pane: PaneRef;
  pastedAt: number;
}

export type Typing =
  /**
   * To be pasted (flagged when `typed`). `leftover`: an earlier paste of it may still sit unsubmitted in the
   * pane (a daemon killed between a paste and its Enter, a paste that timed out), so it is looked for, or
   * cleared, before anything is pasted behind it.
   */
  | { phase: 'committed'; typed: boolean; leftover: boolean }
  | (Keyed & { phase: 'pasted' })
  /** Enter pressed (`enteredAt`: wall clock, to compare with the receipt an agent's hook reports). */
  | (Keyed & { phase: 'entered'; enteredAt: number })
  /** Submitted: for a delivery, only the stamp is left. */
  | (Keyed & { phase: 'confirmed'; enteredAt: number; confirmation: Confirmation });

export type Phase = Typing['phase'];
type In<P extends Phase> = Extract<Typing, { phase: P }>;

/** A committed message on its way. */
export interface Delivery {
  record: ArchiveRecord;
  timing: Timing;
  typing: Typing;
}

/** Text not typed yet, or (`typed`) that may have been typed before: what that paste left is looked for first. */
export const fresh = (typed: boolean): Typing => ({ phase: 'committed', typed, leftover: typed });

/** A delivery whose turn step was just committed (or found cut short at start-up, maybe typed). */
export function begin(record: ArchiveRecord, timing: Timing, opts: { typed: boolean }): Delivery {
  return { record, timing, typing: fresh(opts.typed) };
}

/**
 * An earlier paste of it was found unsubmitted in `pane`'s input box: it is submitted as it is (never
 * pasted behind). `redelivered`: that copy carried the flag (or may have: a client's paste marker cannot tell).
 */
export function found(pane: PaneRef, at: number, redelivered: boolean): In<'pasted'> {
  return { phase: 'pasted', typed: true, redelivered, pane, pastedAt: at };
}

/** Enter was pressed alone in the pane: whatever was left there went as a submit of its own. */
export const cleared = (t: In<'committed'>): In<'committed'> => ({ ...t, leftover: false });

export function pasted(t: In<'committed'>, pane: PaneRef, at: number): In<'pasted'> {
  return { phase: 'pasted', typed: true, redelivered: t.typed, pane, pastedAt: at };
}

export const entered = (t: In<'pasted'>, at: number): In<'entered'> => ({ ...t, phase: 'entered', enteredAt: at });

export function confirmed(t: In<'entered'>, confirmation: Confirmation): In<'confirmed'> {
  return { ...t, phase: 'confirmed', confirmation };
}

/**
 * A step failed. `maybeTyped`: the text may have reached a pane. A paste that is not (or no longer) in
 * the pane it went to goes back to committed, to be pasted again in full, flagged; an Enter or a look
 * that failed stays where it is, to be tried again.
 */
export function failed(t: Typing, how: { maybeTyped: boolean; pasteLost?: boolean }): Typing {
  if (t.phase === 'committed')
    return { ...t, typed: t.typed || how.maybeTyped, leftover: !how.pasteLost && (t.leftover || how.maybeTyped) };
  // Lost to the pane (another instance now, or never shown): nothing of it is left there to submit.
  if (how.pasteLost && t.phase !== 'confirmed') return { phase: 'committed', typed: true, leftover: false };
  return t;
}
