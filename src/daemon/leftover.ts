/**
 * A paste of the message that may still sit unsubmitted in its pane, before it is typed again (a daemon killed
 * between paste and Enter once made the agent submit both copies in one go).
 * - Kinds whose box is read: a box holding that message alone is submitted as it is; one holding anything else
 *   waits until empty; an empty box gets the flagged copy.
 * - Other kinds: Enter alone first, then the flagged copy — maybe twice, never two copies in one submit.
 */
import type { Events } from '../bus/bus.js';
import type { Agent } from '../config/config.js';
import { paneRef, type PaneInfo } from '../terminal/pane.js';
import type { Typed } from '../terminal/typist.js';
import type { Uses } from './context.js';

export type Leftover =
  /** Nothing there to submit (an empty box; or, unseen, nothing known to be left): paste it. */
  | { kind: 'none' }
  /** Enter was pressed alone: whatever was left went on its own. Now paste it, flagged. */
  | { kind: 'entered' }
  /** The box holds this message: submit it, paste nothing. `flagged`: that copy carried (or may carry) the flag. */
  | { kind: 'found'; flagged: boolean }
  /** The box holds something else: wait until it is empty. */
  | { kind: 'other'; error: string }
  /** The Enter alone failed. */
  | { kind: 'failed'; failure: Extract<Typed<void>, { ok: false }> };

export interface LeftoverParts extends Uses<'log' | 'typist'> {
  bus: Events;
}

/** A text that may have been typed before (pipeline.ts), and the pane it would go into now. */
export interface Look {
  id: string;
  receiver: string;
  /** An earlier paste of it may sit in this pane: for a pane baton cannot see, Enter alone goes first. */
  leftover: boolean;
  agent: Agent;
  pane: PaneInfo;
  /** Its text unflagged and flagged, as either paste would have put it there. */
  copies: readonly [string, string];
}

/** Look for what an earlier paste of the message left in the pane, and deal with it. */
export async function leftover(p: LeftoverParts, look: Look): Promise<Leftover> {
  const { agent, pane, copies } = look;
  const r = { id: look.id, receiver: look.receiver };
  const box = await p.typist.box(agent, pane, copies);
  if (box.kind === 'empty') return { kind: 'none' };
  if (box.kind === 'other')
    return {
      kind: 'other',
      error:
        `${r.receiver}'s input box holds something other than ${r.id} alone (${box.detail}); ` +
        'waiting until it is empty: nothing is typed behind it',
    };
  if (box.kind === 'copy') {
    const copy = box.which === 0 ? 'unflagged' : box.which === 1 ? 'flagged' : 'unknown';
    p.log.info(
      `${r.id} → ${r.receiver}: found unsubmitted in its input box (${copy}); submitting it, not typing it again`,
    );
    await p.bus.events.emit('leftover_paste', { id: r.id, to: r.receiver, action: 'submitted', copy });
    return { kind: 'found', flagged: box.which !== 0 };
  }
  if (!look.leftover) return { kind: 'none' };
  const e = await p.typist.enter(agent, paneRef(pane), { alone: true });
  if (!e.ok) return { kind: 'failed', failure: e };
  p.log.info(`${r.id} → ${r.receiver}: Enter alone first (an earlier paste may be in its input), then typed again`);
  await p.bus.events.emit('leftover_paste', { id: r.id, to: r.receiver, action: 'entered' });
  return { kind: 'entered' };
}
