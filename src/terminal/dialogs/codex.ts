/**
 * Codex CLI's dialogs (measured on 0.169.0). A dialog replaces the composer and its status line:
 *
 *       Would you like to run the following command?
 *       Environment: local
 *       Reason: Do you want to allow this command outside the sandbox?
 *       $ echo hi > /tmp/x/outside.txt
 *     › 1. Yes, proceed (y)
 *       2. Yes, and don't ask again for commands that start with `echo hi > /tmp/x/outside.txt` (p)
 *       3. No, and tell Codex what to do differently (esc)
 *       Press enter to confirm or esc to cancel
 *
 * - A command approval opens only when the model asks for escalation or a `decision="prompt"` rule matches
 *   (then two choices: Yes, No). Its keys: the letter in brackets (`y`, `p`), Esc for No — and a digit
 *   picks at once too; `n` is No although the screen never says so.
 * - `request_user_input` (Plan mode): `Question 1/1 (1 unanswered)`, the question, `› 1. Red (Recommended)
 *   A warm color`; a digit answers at once.
 * - Start-up: "Trust this folder?" (`enter continue · esc back`) and "Hooks need review" (`enter confirm ·
 *   esc skip`): there a digit only moves the cursor and Enter picks.
 */
import type { DialogKind, ScreenDialog } from '../../core/dialog.js';
import { plain } from '../screens/sgr.js';
import { lastNumbered, linesBetween, numberedDialog, topAbove } from './rows.js';

const ROW = /^\s*(›)?\s*(\d+)\.\s+(\S.*)$/;
/** Where its dialog's own lines begin: a transcript line above it (`• Running …`, `› a prompt`, `■ …`). */
const TRANSCRIPT = /^[•◦■✔✗›]|^\s*[╭╰│]/;

function kindOf(words: string): DialogKind {
  if (/Would you like to (?:run|make|apply|allow)|requires approval|approve/i.test(words)) return 'permission';
  if (/Question \d+\/\d+/.test(words)) return 'question';
  if (/Trust this folder\?|Folder access|Hooks need review/.test(words)) return 'trust';
  if (/Sign in|API key|log ?in/i.test(words)) return 'login';
  return 'other';
}

export function readCodexDialog(raw: string[]): ScreenDialog | null {
  const text = raw.map(plain);
  const rows = lastNumbered(text, ROW, (l) => l.trim() === '' || /^\s{4,}\S/.test(l));
  if (!rows) return null;
  const first = rows.at[0]!;
  const top = topAbove(text, first, (l) => TRANSCRIPT.test(l), 15);
  const lines = linesBetween(text, top >= 0 ? top + 1 : first - 15, first, (l) => l.trim());
  return numberedDialog(text, rows, lines, kindOf);
}
