/**
 * Agents waiting at a dialog for a person (docs/protocol.md §12): the turn holder's blocks the conversation,
 * another agent's only holds its own pane. Each shows what it asks and a button per choice, as the client's
 * screen lists them; a button answers through the same control as `baton answer` (the page's token, its
 * Origin), carrying the identity of the dialog shown — the daemon types the keys only while that same
 * dialog is on the agent's screen, and says what is there otherwise. The list is rebuilt only when a dialog
 * changes, so a button is never swapped from under a click.
 */
import type { StatusReport as Status } from '../src/ui/api.js';
import { $, act, h, when } from './dom.js';

interface Shown {
  agent: string;
  blocks: boolean;
  kind: string;
  since: string;
  question: string;
  choices: Array<{ n: number; label: string }>;
  dialog: string | null;
}

let shownKey = '';

function dialogsOf(s: Status): Shown[] {
  const out: Shown[] = [];
  const b = s.blocked;
  if (b) out.push({ ...b, blocks: true, choices: b.choices ?? [], dialog: b.dialog ?? null });
  for (const [agent, a] of Object.entries(s.agents)) {
    if (!a.dialog || agent === b?.agent) continue;
    out.push({ agent, blocks: false, ...a.dialog, choices: a.dialog.choices ?? [], dialog: a.dialog.dialog ?? null });
  }
  return out;
}

function item(d: Shown): HTMLElement {
  const buttons = d.dialog
    ? d.choices.map((c) => {
        const b = h('button', { type: 'button', class: 'choice', 'data-n': String(c.n) }, `${c.n}. ${c.label}`);
        b.addEventListener(
          'click',
          () => void act(b, 'answer', { agent: d.agent, choice: String(c.n), dialog: d.dialog }),
        );
        return b;
      })
    : [];
  return h(
    'li',
    { 'data-agent': d.agent, class: d.blocks ? 'blocks' : '' },
    h(
      'div',
      { class: 'meta' },
      h('strong', { class: 'who' }, d.agent),
      ` waits at a ${d.kind} dialog since ${when(d.since)}`,
      d.blocks ? h('span', { class: 'badge' }, 'blocks the conversation') : null,
    ),
    h('div', { class: 'question' }, d.question),
    buttons.length
      ? h('div', { class: 'row choices' }, ...buttons)
      : h('small', {}, 'Its choices show once its screen has drawn it.'),
  );
}

export function renderDialogs(s: Status): void {
  const all = dialogsOf(s);
  const key = JSON.stringify(all);
  if (key === shownKey) return;
  shownKey = key;
  $('blocked-box').hidden = all.length === 0;
  $('dialogs').replaceChildren(...all.map(item));
}
