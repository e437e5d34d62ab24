/**
 * One delivery, from its committed turn step to its stamp, as data (it was once six booleans and nullables
 * on the daemon, with the state machine only in a comment). Each arrow is one step of the courier
 * (daemon/courier.ts); a kill -9 at any point is covered by the crash rule of docs/protocol.md §6, which
 * start-up recovery applies to the stored record:
 *
 *   archived ──state saved──▶ committed ──paste──▶ pasted ──Enter──▶ entered
 *            ──submit seen──▶ confirmed ──stamp──▶ done
 *
 * `typed`: this message's text may already be in a pane (a crash or a timeout during a paste, a paste
 * into a pane that went away or never showed it). From then on every paste of it says "(redelivered)",
 * so it is never typed twice silently. A failed step goes back only as far as it must: a lost Enter is
 * pressed again, a lost paste is pasted again (flagged), a failed stamp is stamped again.
 */
import type { ArchiveRecord, Confirmation } from './record.js';

/**
 * The pane a paste went into: its id, its first process and its tmux server. An Enter goes to that very
 * pane or nowhere: pane ids are reused by the next tmux server (an Enter meant for one agent once landed
 * in the other's pane), and a session replaced inside the Enter delay got an Enter alone.
 */
export interface PaneRef {
  id: string;
  pid: number;
  server: string;
}

/** When the message was first seen, and when its turn came (the time between was spent held). */
export interface Timing {
  firstSeen: number;
  turnSince: number;
}

interface Base {
  record: ArchiveRecord;
  timing: Timing;
}

export type Delivery =
  /** Archived, but the state has not been saved yet: nothing may be typed until it is. */
  | (Base & { phase: 'archived'; typed: false })
  /**
   * The turn step is durable; the text is to be pasted (flagged when `typed`). `leftover`: an earlier
   * paste of it may still sit unsubmitted in the receiver's pane (a daemon killed between a paste and its
   * Enter, a paste that timed out), so it is looked for, or cleared, before anything is pasted behind it.
   */
  | (Base & { phase: 'committed'; typed: boolean; leftover: boolean })
  /** Pasted into `pane` (this paste carried "(redelivered)" when `redelivered`). */
  | (Base & { phase: 'pasted'; typed: true; redelivered: boolean; pane: PaneRef; pastedAt: number })
  /**
   * Enter pressed (`enteredAt`: wall clock, to compare with the receipt an agent's hook reports): only the
   * look at the screen is left.
   */
  | (Base & { phase: 'entered'; typed: true; redelivered: boolean; pane: PaneRef; pastedAt: number; enteredAt: number })
  /** Submitted: only the stamp is left. */
  | (Base & {
      phase: 'confirmed';
      typed: true;
      redelivered: boolean;
      pane: PaneRef;
      pastedAt: number;
      enteredAt: number;
      confirmation: Confirmation;
    });

export type Phase = Delivery['phase'];

/** A delivery whose turn step was just committed (or found cut short at start-up, maybe typed). */
export function begin(record: ArchiveRecord, timing: Timing, opts: { typed: boolean; saved: boolean }): Delivery {
  return opts.saved
    ? { phase: 'committed', record, timing, typed: opts.typed, leftover: opts.typed }
    : { phase: 'archived', record, timing, typed: false };
}

export function saved(d: Extract<Delivery, { phase: 'archived' }>): Delivery {
  return { ...d, phase: 'committed', typed: false, leftover: false };
}

/**
 * An earlier paste of it was found unsubmitted in `pane`'s input box: it is submitted as it is (never
 * pasted behind). `redelivered`: that copy carried the flag (or may have: a client's paste marker cannot tell).
 */
export function found(
  d: Extract<Delivery, { phase: 'committed' }>,
  pane: PaneRef,
  at: number,
  redelivered: boolean,
): Delivery {
  return { record: d.record, timing: d.timing, phase: 'pasted', typed: true, redelivered, pane, pastedAt: at };
}

/** Enter was pressed alone in the pane: whatever was left there went as a submit of its own. */
export function cleared(d: Extract<Delivery, { phase: 'committed' }>): Delivery {
  return { ...d, leftover: false };
}

export function pasted(d: Extract<Delivery, { phase: 'committed' }>, pane: PaneRef, at: number): Delivery {
  return { record: d.record, timing: d.timing, phase: 'pasted', typed: true, redelivered: d.typed, pane, pastedAt: at };
}

export function entered(d: Extract<Delivery, { phase: 'pasted' }>, at: number): Delivery {
  return { ...d, phase: 'entered', enteredAt: at };
}

export function confirmed(d: Extract<Delivery, { phase: 'entered' }>, confirmation: Confirmation): Delivery {
  return { ...d, phase: 'confirmed', confirmation };
}

/**
 * A step failed. `maybeTyped`: the text may have reached a pane. A paste that is not (or no longer) in
 * the pane it went to goes back to committed, to be pasted again in full, flagged; an Enter or a look
 * that failed stays where it is, to be tried again.
 */
export function failed(d: Delivery, how: { maybeTyped: boolean; pasteLost?: boolean }): Delivery {
  if (d.phase === 'committed')
    return { ...d, typed: d.typed || how.maybeTyped, leftover: !how.pasteLost && (d.leftover || how.maybeTyped) };
  // Lost to the pane (another instance now, or never shown): nothing of it is left there to submit.
  if (how.pasteLost && d.phase !== 'archived' && d.phase !== 'confirmed')
    return { record: d.record, timing: d.timing, phase: 'committed', typed: true, leftover: false };
  return d;
}

/** May text in the box be this delivery's own (pasted earlier, not submitted)? */
export const mayBeInBox = (d: Delivery): boolean => d.typed;
