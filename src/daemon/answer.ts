/**
 * `baton answer` and the dashboard's buttons (docs/protocol.md §12): a person's choice typed into an agent's open
 * dialog as the keys that pick it in that client (terminal/dialogs/) — only while its screen shows the dialog the
 * person was offered (its lines and choices, core/dialog.ts), read again before the first key and before a
 * confirming Enter. Anything else on the screen is refused with what is there, and nothing is typed.
 * Answered between passes like `send` (steering.ts), so no key lands between a paste and its Enter; refused while a
 * delivery to that agent is not stamped. The keys go through the typist's fence like every keystroke.
 */
import { FencedError } from '../bus/bus.js';
import { isLocal } from '../config/config.js';
import { dialogId, pickChoice, sameAsOffered, type ScreenDialog } from '../core/dialog.js';
import { fail, type Reply, type Request } from '../core/requests.js';
import { keysFor, readDialog, readsDialogs } from '../terminal/dialogs/index.js';
import type { PaneInfo } from '../terminal/pane.js';
import type { Stage } from './stage.js';

type Answer = Extract<Request, { op: 'answer' }>;

/** How long after a key that only moved the cursor the screen is read again, at most. */
const REDRAW_MS = 1500;

/** The dialog on the agent's screen now, or why there is none to answer. */
async function onScreen(
  stage: Stage,
  agent: string,
): Promise<{ pane: PaneInfo; dialog: ScreenDialog | null } | string> {
  const a = stage.config.agents[agent]!;
  const seen = await stage.keys.look(a);
  if (!seen.ok) return `cannot read ${agent}'s screen: ${seen.reason}`;
  const look = readDialog(a.kind, seen.lines);
  if (look.state === 'dialog' && !look.dialog)
    return `${agent}'s screen shows a dialog baton cannot read; answer it in its pane (baton attach ${agent})`;
  return { pane: seen.pane, dialog: look.state === 'dialog' ? look.dialog : null };
}

export async function answer(stage: Stage, req: Answer): Promise<Reply> {
  const { config } = stage;
  const agent = req.to;
  const a = config.agents[agent];
  if (!a) return fail(`unknown agent "${agent}"`);
  if (!isLocal(config, agent)) return fail(`${agent} is not an agent of this machine`);
  if (!readsDialogs(a.kind)) return fail(`baton does not read the dialogs of ${a.kind} agents`);
  // Its paste may be in the box, its Enter not yet pressed: no key goes in between.
  if (stage.deliveringTo() === agent)
    return fail(`not now: a message to ${agent} is still being delivered; nothing was typed`);
  const now = await onScreen(stage, agent);
  if (typeof now === 'string') return fail(`not answered: ${now}`);
  const differs = sameAsOffered(req.dialog, now.dialog);
  if (differs || !now.dialog) return fail(`not answered: ${agent}: ${differs}; nothing was typed`);
  const d = now.dialog;
  const picked = pickChoice(d.choices, req.choice);
  if (!picked.ok) return fail(`not answered: ${picked.why}`);
  const plan = keysFor(a.kind, d, picked.choice);
  if (!plan.ok) return fail(`not answered: ${plan.why}`);
  for (const [i, key] of plan.plan.select.entries()) {
    // Several keys only move a cursor (arrows): each next one only into the same dialog.
    if (i > 0) {
      const still = await onScreen(stage, agent);
      const changed = typeof still === 'string' ? still : sameAsOffered(req.dialog, still.dialog);
      if (changed) {
        stage.answered(agent);
        return fail(`not answered: after ${i} key(s) ${changed}; nothing was picked`);
      }
    }
    const r = await stage.keys.press(now.pane, key);
    if (!r.ok) return pressFailed(agent, r);
  }
  if (plan.plan.confirm) {
    // The keys before a confirming Enter only move the cursor: a dialog gone now was closed by something
    // else (the client, a person at the pane), never by them, so it is not reported as answered.
    const why = await confirmed(stage, agent, { id: req.dialog, n: picked.choice.n });
    if (why) {
      stage.answered(agent);
      const gone = `${agent}'s dialog closed before baton pressed Enter: the keys before it only move a cursor, so something else closed it; look with baton attach ${agent}`;
      return fail(`not answered: ${why === 'gone' ? gone : `${why}; its cursor may have moved, nothing was picked`}`);
    }
    const r = await stage.keys.press(now.pane, plan.plan.confirm);
    if (!r.ok) return pressFailed(agent, r);
  }
  const choice = { n: picked.choice.n, label: picked.choice.label };
  stage.log.info(`${agent}'s dialog answered (${req.by}): ${choice.n}. ${choice.label}`);
  await stage.bus.events.emit('answered', { agent, choice: choice.label, n: choice.n, by: req.by, dialog: req.dialog });
  stage.answered(agent);
  return { ok: true, message: `answered ${agent}: ${choice.n}. ${choice.label}`, agent, choice };
}

/**
 * Before the confirming Enter: the same dialog, its cursor on the choice (a key that only moves it takes a
 * moment to draw). Null when so; 'gone' when no dialog is there any more; else why not.
 */
async function confirmed(
  stage: Stage,
  agent: string,
  want: { id: string; n: number },
): Promise<string | 'gone' | null> {
  let last = '';
  for (
    const end = performance.now() + REDRAW_MS;
    performance.now() < end;
    await new Promise((r) => setTimeout(r, 50))
  ) {
    const now = await onScreen(stage, agent);
    if (typeof now === 'string') return now;
    if (!now.dialog) return 'gone';
    if (dialogId(now.dialog) !== want.id) return `${agent}'s dialog changed after the first key`;
    if (now.dialog.selected === want.n) return null;
    last = `its cursor is on ${now.dialog.selected ?? 'no choice'}, not ${want.n}`;
  }
  return last || 'its cursor did not move';
}

function pressFailed(agent: string, r: { error: string; refused?: string }): Reply {
  if (r.refused === 'fenced') throw new FencedError(r.error);
  return fail(`not answered: a key into ${agent}'s pane was refused (${r.error})`);
}
