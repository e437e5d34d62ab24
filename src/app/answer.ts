/**
 * Answering an agent's dialog from anywhere (docs/protocol.md §12): the dialog offered to a person (`status`,
 * `answer --list`, the dashboard) and the request that answers it (daemon/answer.ts types the keys). The offer's
 * identity travels with the request, so the keys go in only while that same dialog is on the screen. The offer
 * is the turn holder's `blocked` (any machine sees it), else this machine's daemon's open dialogs; with no
 * daemon here, the agent's screen read now (a dead daemon's stale record is not offered).
 */
import { openBus } from '../bus/open.js';
import type { Status } from '../bus/bus.js';
import { isLocal, type Config } from '../config/config.js';
import { type Choice, type DialogKind, dialogId, pickChoice, questionOf } from '../core/dialog.js';
import type { Request } from '../core/requests.js';
import { readDialog, readsDialogs } from '../terminal/dialogs/index.js';
import { readDialogs } from '../terminal/hooks/dialog-files.js';
import { KINDS } from '../terminal/kinds.js';
import { capture, findPane } from '../terminal/pane.js';
import type { Tmux } from '../terminal/tmux.js';
import { UsageError } from './input.js';
import { conversationTmux } from './tmux-server.js';

/** A dialog as offered to a person: what it asks, its choices as its screen lists them, its identity. */
export interface Offered {
  agent: string;
  since: string | null;
  kind: DialogKind;
  question: string;
  choices: Choice[];
  /** Its identity (core/dialog.ts): the answer is typed only while this same dialog is on the screen. */
  dialog: string;
}

/** The agent's open dialog as offered now, or why there is none to answer (`waiting`: one is open, not yet readable). */
export type Offer = { ok: true; offered: Offered } | { ok: false; why: string; waiting: boolean };

/** The agent's screen, read here and now (no daemon reads it for us). */
async function fromScreen(config: Config, agent: string, t: Tmux): Promise<Offer> {
  const a = config.agents[agent]!;
  const pane = await findPane(t, a);
  if (!pane || pane.dead) return { ok: false, why: `${agent} has no live pane`, waiting: false };
  const lines = await capture(t, pane, KINDS[a.kind].colours);
  const look = lines ? readDialog(a.kind, lines) : ({ state: 'unknown' } as const);
  if (look.state !== 'dialog') return { ok: false, why: `${agent} has no open dialog`, waiting: false };
  const d = look.dialog;
  const unread = `${agent}'s screen shows a dialog baton cannot read (baton attach ${agent})`;
  if (!d) return { ok: false, why: unread, waiting: true };
  const { kind, choices } = d;
  return { ok: true, offered: { agent, since: null, kind, question: questionOf(d), choices, dialog: dialogId(d) } };
}

export async function offeredDialog(
  config: Config,
  agent: string,
  opts: { bus?: Pick<Status, 'readState'> & { daemon(): Promise<{ running: boolean }> }; tmux?: Tmux } = {},
): Promise<Offer> {
  const a = config.agents[agent];
  if (!a) throw new UsageError(`unknown agent "${agent}" (agents: ${config.order.join(', ')})`);
  if (!readsDialogs(a.kind))
    return { ok: false, why: `baton does not read the dialogs of ${a.kind} agents`, waiting: false };
  const bus = opts.bus ?? openBus(config);
  const local = isLocal(config, agent);
  if (local && !(await bus.daemon()).running) return fromScreen(config, agent, opts.tmux ?? conversationTmux(config));
  const blocked = (await bus.readState())?.blocked;
  const kept = blocked?.agent === agent ? blocked : local ? readDialogs(config.messageDir)[agent] : undefined;
  if (!kept) {
    const where = local ? '' : ` (as far as this machine knows: ${agent} runs on ${a.host})`;
    return { ok: false, why: `${agent} has no open dialog${where}`, waiting: false };
  }
  const unshown = `${agent} waits at a dialog (${kept.kind}: ${kept.question}) that its screen has not shown yet`;
  if (!kept.dialog || !kept.choices?.length)
    return { ok: false, why: `${unshown}; try again in a moment`, waiting: true };
  const { since, kind, question, choices, dialog } = kept;
  return { ok: true, offered: { agent, since, kind, question, choices, dialog } };
}

/** The request that answers the offered dialog with CHOICE; a CHOICE that names none of its choices is a usage error. */
export function answerRequest(offered: Offered, choice: string, by: 'cli' | 'dashboard'): Request {
  const picked = pickChoice(offered.choices, choice);
  if (!picked.ok) throw new UsageError(`${offered.agent}'s dialog: ${picked.why}`);
  return { op: 'answer', to: offered.agent, choice: String(picked.choice.n), dialog: offered.dialog, by };
}

/** The offered dialog for a person: what it asks, then its choices, one a line. */
export function formatOffered(o: Offered): string {
  const since = o.since ? ` since ${o.since}` : '';
  return [
    `${o.agent} waits at a ${o.kind} dialog${since}:`,
    `  ${o.question}`,
    ...o.choices.map((c) => `  ${c.n}. ${c.label}`),
    `answer with: baton answer ${o.agent} N (or yes, no, or the first words of a choice)`,
  ].join('\n');
}
