/**
 * Gemini CLI's dialogs (measured on 0.61.0): a rounded box in place of the input line, its mode line and
 * footer, with `●` on the highlighted choice:
 *
 *     ╭──────────────────────────────────────────╮
 *     │ ? Shell  echo hi > f.txt                  │
 *     │ ╭──────────────────────────────────────╮ │
 *     │ │ echo hi > f.txt                       │ │
 *     │ ╰──────────────────────────────────────╯ │
 *     │ Allow execution of [Shell]?               │
 *     │ ● 1. Allow once                           │
 *     │   2. Allow for this session               │
 *     │   3. No, suggest changes (esc)            │
 *     ╰──────────────────────────────────────────╯
 *
 * - An edit asks `Apply this change?` (No is 4 there); `ask_user` draws `Answer Questions`, the question,
 *   choices with descriptions below them and `Enter to select · ↑/↓ to navigate · Esc to cancel`.
 * - Start-up: `Do you trust the files in this folder?`; a loop detected: `A potential loop was detected`.
 * Keys, measured: a choice's digit picks it at once; Esc is No; `y`/`n` do nothing, and `j`/`k` MOVE THE
 * CURSOR — text typed into an open dialog, then an Enter, once answered one. Nothing but its keys goes in.
 */
import type { DialogKind, ScreenDialog } from '../../core/dialog.js';
import { plain } from '../screens/sgr.js';
import { lastNumbered, linesBetween, numberedDialog, topAbove } from './rows.js';

/** A box line's inside, every frame it is drawn in taken off (the command sits in a box within the box). */
function inside(line: string): string {
  let l = line;
  for (let m = /^\s*│(.*)│\s*$/.exec(l); m; m = /^\s*│(.*)│\s*$/.exec(l)) l = m[1]!;
  return l.replace(/\s+$/, '');
}

const ROW = /^\s*(●)?\s*(\d+)\.\s+(\S.*)$/;
/** A box's top or bottom edge, or a line of frame only. */
const EDGE = /^\s*[╭╰]─+[╮╯]?\s*$/;

function kindOf(words: string): DialogKind {
  if (/Allow execution of|Apply this change\?|Do you want to proceed|Allow (?:MCP|tool)/.test(words))
    return 'permission';
  if (/Answer Questions|Enter to select/.test(words)) return 'question';
  if (/Do you trust the files/i.test(words)) return 'trust';
  if (/API Key|authenticate|sign in/i.test(words)) return 'login';
  return 'other';
}

export function readGeminiDialog(raw: string[]): ScreenDialog | null {
  const frame = raw.map(plain);
  const text = frame.map(inside);
  const rows = lastNumbered(text, ROW, (l) => l.trim() === '' || /^\s{4,}\S/.test(l));
  if (!rows) return null;
  const first = rows.at[0]!;
  // The outer box's top edge: a line that starts with ╭ before any frame is taken off.
  const top = topAbove(frame, first, (l) => /^\s*╭/.test(l), 40);
  const lines = linesBetween(text, top >= 0 ? top + 1 : first - 12, first, (l) => (EDGE.test(l) ? '' : l.trim()));
  return numberedDialog(text, rows, lines, kindOf);
}
