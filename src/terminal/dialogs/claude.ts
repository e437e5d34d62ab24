/**
 * Claude Code's dialogs (measured on 2.1.197 and 2.1.332). A dialog replaces the input box: a full rule
 * (`────`), its lines, numbered choices with `❯` on the highlighted one, and a footer:
 *
 *     ────────────────────────────────────────────
 *      Bash command
 *        echo hi > f.txt
 *        Write hi to f.txt
 *      Do you want to proceed?
 *      ❯ 1. Yes
 *        2. Yes, and always allow access to cwd/ from this project
 *        3. No
 *      Esc to cancel · Tab to amend · ctrl+e to explain
 *
 * - The Write tool asks `Do you want to create w.txt?`; 2.1.332 puts `╌╌╌` rules around the command and
 *   adds a fourth choice ("Yes, and switch to auto mode"), so No is 4 there.
 * - AskUserQuestion: a header chip (`☐ Color`), the question, choices with descriptions indented below them,
 *   "Type something.", a rule, "Chat about this", and `Enter to select · ↑/↓ to navigate · Esc to cancel`.
 * - Start-up: folder trust (`Quick safety check: Is this a project you created or one you trust?`, `Enter to
 *   confirm · Esc to cancel`) and a custom API key (`Detected a custom API key in your environment`). On
 *   2.1.332 these (and auto mode's approval) number no choice: `❯ No, exit` / `  Yes, I trust this folder`;
 *   a digit does nothing there, the arrows move the cursor and Enter picks.
 * Keys, measured: a choice's digit picks it at once (no Enter); Esc is No; `y`/`n` do nothing.
 */
import type { DialogKind, ScreenDialog } from '../../core/dialog.js';
import { plain } from '../screens/sgr.js';
import { lastNumbered, linesBetween, topAbove } from './rows.js';

const ROW = /^\s*(❯)?\s*(\d+)\.\s+(\S.*)$/;
const RULE = /^\s*─{20,}\s*$/;
const DASHES = /^\s*[╌─]{10,}\s*$/;
/** The footers of its dialogs. */
const FOOTER = /Esc to cancel|Enter to confirm|Enter to select|Enter to stay in/;

/** Between two choices: blanks, descriptions (indented deeper), the rule before "Chat about this". */
const between = (l: string) => l.trim() === '' || /^\s{4,}\S/.test(l) || RULE.test(l);

function kindOf(words: string): DialogKind {
  if (
    /Do you want to (?:proceed|create|make|overwrite|delete|allow|run|edit)|needs your (?:approval|permission)/i.test(
      words,
    )
  )
    return 'permission';
  if (/Enter to select|Type something\.|Chat about this|Ready to submit your answers\?/.test(words)) return 'question';
  if (/one you trust|trust this folder|Do you trust/i.test(words)) return 'trust';
  if (/API key|log ?in|sign in/i.test(words)) return 'login';
  return 'other';
}

/** Its own lines: from the rule above it (a start-up dialog has none: at most 12 lines), dashed rules left out. */
function ownLines(text: string[], first: number): string[] {
  const top = topAbove(text, first, (l) => RULE.test(l), 40);
  const from = top >= 0 ? top + 1 : Math.max(0, first - 12);
  return linesBetween(text, from, first, (l) => (DASHES.test(l) ? '' : l.trim()));
}

/** 2.1.332's unnumbered choices right above the footer: `❯ No, exit` and the rows indented as its label is. */
function unnumbered(text: string[]): ScreenDialog | null {
  let footer = -1;
  for (let i = text.length - 1; i >= 0 && footer < 0; i--) if (FOOTER.test(text[i]!)) footer = i;
  if (footer < 0) return null;
  let cursor = -1;
  for (let i = footer - 1; i >= Math.max(0, footer - 12) && cursor < 0; i--)
    if (/^\s*❯\s+\S/.test(text[i]!)) cursor = i;
  if (cursor < 0) return null;
  const indent = text[cursor]!.indexOf('❯') + 2;
  const isRow = (l: string) => l.length > indent && /^\s*$/.test(l.slice(0, indent)) && l[indent] !== ' ';
  let first = cursor;
  while (first > 0 && isRow(text[first - 1]!)) first--;
  let last = cursor;
  while (last + 1 < footer && isRow(text[last + 1]!)) last++;
  const rows = text.slice(first, last + 1).map((l) => l.replace(/^\s*❯?\s*/, '').trim());
  const lines = ownLines(text, first);
  return {
    kind: kindOf([...lines, ...rows, text[footer]!].join('\n')),
    lines,
    choices: rows.map((label, i) => ({ n: i + 1, label })),
    selected: cursor - first + 1,
    numbered: false,
  };
}

export function readClaudeDialog(raw: string[]): ScreenDialog | null {
  const text = raw.map(plain);
  const rows = lastNumbered(text, ROW, between);
  if (!rows) return unnumbered(text);
  const first = rows.at[0]!;
  const lines = ownLines(text, first);
  const below = text.slice(rows.at.at(-1)! + 1).join('\n');
  return {
    kind: kindOf([...lines, ...rows.choices.map((c) => c.label), below].join('\n')),
    lines,
    choices: rows.choices,
    selected: rows.selected,
    numbered: true,
  };
}
