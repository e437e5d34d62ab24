/**
 * A client's dialog as data (core/dialog.ts), from its screen, and the keys that pick one of its choices —
 * per client, as measured (docs/protocol.md §12 has the table). Pure: the daemon reads the screen and presses
 * the keys (daemon/answer.ts), through the fence every keystroke goes through (terminal/fence.ts).
 */
import type { AgentKind } from '../../config/config.js';
import type { Choice, ScreenDialog } from '../../core/dialog.js';
import type { ScreenLook } from '../../core/blocked.js';
import { KINDS } from '../kinds.js';
import { readClaudeDialog } from './claude.js';
import { readCodexDialog } from './codex.js';
import { readGeminiDialog } from './gemini.js';

const READERS: Partial<Record<AgentKind, (lines: string[]) => ScreenDialog | null>> = {
  claude: readClaudeDialog,
  codex: readCodexDialog,
  gemini: readGeminiDialog,
};

/** Does baton read this kind's dialogs? */
export const readsDialogs = (kind: AgentKind): boolean => READERS[kind] !== undefined;

/**
 * What the screen shows: a dialog (null when the kind's screen reader sees one but its layout is not one
 * baton reads), none (the input box is there), or a screen baton does not know.
 */
export function readDialog(kind: AgentKind, lines: string[]): ScreenLook {
  const read = READERS[kind];
  const screen = KINDS[kind].readScreen?.(lines);
  if (!read || !screen) return { state: 'unknown' };
  if (screen.state === 'ready' || screen.state === 'holding') return { state: 'none' };
  const dialog = read(lines);
  if (dialog) return { state: 'dialog', dialog };
  return screen.state === 'dialog' ? { state: 'dialog', dialog: null } : { state: 'unknown' };
}

/** The only keys baton ever presses into a dialog: tmux key names, none of which is text a client would take as words. */
export const DIALOG_KEYS = [
  ...(['1', '2', '3', '4', '5', '6', '7', '8', '9'] as const),
  ...(['y', 'p', 'Enter', 'Escape', 'Up', 'Down'] as const),
] as const;
export type DialogKey = (typeof DIALOG_KEYS)[number];

/**
 * The keys that pick a choice: `select` first; then, when there is one, the screen is read again and `confirm`
 * pressed only if the same dialog is there with its cursor on that choice (a digit that only moved the
 * cursor, arrows). Measured: Claude Code and Gemini CLI pick a numbered choice by its digit, at once; Codex's
 * approval by the letter it shows (`y`, `p`) or Esc, its questions by digit, its start-up dialogs by digit
 * then Enter; Claude Code 2.1.332's unnumbered ones by the arrows, then Enter.
 */
export type KeyPlan = { select: DialogKey[]; confirm: 'Enter' | null };

const digit = (n: number): DialogKey | null => (n >= 1 && n <= 9 ? (String(n) as DialogKey) : null);

export function keysFor(
  kind: AgentKind,
  d: ScreenDialog,
  choice: Choice,
): { ok: true; plan: KeyPlan } | { ok: false; why: string } {
  if (!d.numbered) {
    if (d.selected === null) return { ok: false, why: 'its cursor is on no choice baton can see' };
    const steps = choice.n - d.selected;
    return { ok: true, plan: { select: Array(Math.abs(steps)).fill(steps > 0 ? 'Down' : 'Up'), confirm: 'Enter' } };
  }
  if (kind === 'codex') {
    const hint = /\((y|p|esc)\)\s*$/i.exec(choice.label)?.[1]?.toLowerCase();
    if (d.kind === 'permission' && hint)
      return { ok: true, plan: { select: [hint === 'esc' ? 'Escape' : (hint as DialogKey)], confirm: null } };
  }
  const key = digit(choice.n);
  if (!key) return { ok: false, why: `choice ${choice.n} has no key baton can press` };
  // Codex's start-up dialogs: a digit only moves the cursor there, Enter picks (its questions and approvals pick at once).
  const confirm = kind === 'codex' && d.kind !== 'permission' && d.kind !== 'question';
  return { ok: true, plan: { select: [key], confirm: confirm ? 'Enter' : null } };
}
