/**
 * Codex CLI's screen (measured on the real 0.169.0; captures of every state below are in
 * test/unit/terminal/screens.test.ts). There are no rules around its input box: from the bottom,
 *
 *     › text of the box            (the last line starting with "› "; continuation lines indented by 2)
 *                                  (a blank line)
 *       gpt-5.1-codex default · /work/dir      (the status line: model, effort, folder)
 *       ← for agents · ? for shortcuts          (hints; "tab to queue message" while busy with text)
 *
 * - Empty: the box shows a **dim** placeholder ("Ask Codex to do anything", and others): read with colours.
 * - Not ready yet: while it loads the status line is missing (only "? for shortcuts").
 * - Text: `› [baton] msg_…`, or `› [Pasted Content 21046 chars]` for a big paste.
 * - Busy: `• Working (3s • esc to interrupt)` (the bullet blinks • ◦) above the box; messages queued with
 *   Tab show as `• Queued follow-up inputs`, steered ones as `• Messages to be submitted after next tool
 *   call` — either way the box is empty again.
 * - Dialogs (hooks to review, folder trust) have numbered choices `› 1. …` and no status line: a `›` alone
 *   is not the box.
 * Transcript lines of what a person typed also start with `› `; the box is the last one above the status line.
 */
import { boxless, type Screen } from '../screen.js';
import { dimAt, plain } from './sgr.js';

/** The status line: model and effort, " · ", the working folder (an absolute or home path). */
const STATUS = /^ {2}\S.*\s·\s(?:\/|~)\S*/;
const PROMPT = /^› ?/;
const BUSY = /^[•◦] Working \(.*esc to interrupt/;
const DIALOG = [
  /^› \d+\.\s+\S/,
  /enter (?:confirm|continue) · esc/,
  /Hooks need review/,
  /Trust this folder\?/,
  /^\s*Question \d+\/\d+ \(\d+ unanswered\)/,
];

export function readCodexScreen(lines: string[]): Screen {
  const text = lines.map(plain);
  let status = -1;
  for (let i = text.length - 1; i >= 0 && status < 0; i--) if (STATUS.test(text[i]!)) status = i;
  let box = -1;
  for (let i = status - 1; i >= 0 && box < 0; i--) if (PROMPT.test(text[i]!) && text[i]!.startsWith('›')) box = i;
  if (status < 0 || box < 0 || DIALOG[0]!.test(text[box]!)) {
    const screen = boxless(text, DIALOG, '(empty screen)');
    const loading = screen.state === 'unknown' && text.some((l) => /OpenAI Codex \(v/.test(l));
    return loading ? { state: 'unknown', detail: 'Codex is starting (no status line yet)' } : screen;
  }
  const busy = text.slice(0, box).some((l) => BUSY.test(l.trim()));
  const first = text[box]!.replace(PROMPT, '');
  const at = text[box]!.length - first.length;
  // The placeholder: the box's first character is drawn dim (what a person types is not).
  if (first === '' || dimAt(lines[box]!, at)) return { state: 'ready', busy };
  const input = [first, ...text.slice(box + 1, status).map((l) => l.replace(/^ {2}/, ''))].join('\n').trim();
  return { state: 'holding', busy, input };
}
