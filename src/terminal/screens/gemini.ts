/**
 * Gemini CLI's screen (measured on the real 0.61.0; captures of every state below are in
 * test/unit/terminal/screens.test.ts). From the bottom:
 *
 *     ───────────────────────────      (a rule)
 *      YOLO Ctrl+Y                      (the mode line)
 *     ▄▄▄▄▄▄▄▄▄▄▄▄                      (the box's top edge — only in a true-colour terminal)
 *      * text of the box               (" > ", " * " in YOLO mode, " ! " in shell mode; continuation: 3 spaces)
 *     ▀▀▀▀▀▀▀▀▀▀▀▀                      (its bottom edge — only in a true-colour terminal)
 *      workspace (/directory)   sandbox   /model     (the footer)
 *
 * - Empty: the placeholder `Type your message or @path/to/file`.
 * - Text: ` > [baton] msg_…`, or `[Pasted Text: 10 lines]` / `[Pasted Text: 1998 chars]` for a big paste.
 * - Busy: ` ⠋ Thinking... (esc to cancel, 2s)` (a braille spinner; `Executing Hook: …` while a hook
 *   runs) above the rule; what is sent meanwhile is queued (`Queued (press ↑ to edit):`).
 * - Dialogs (folder trust, "Allow execution of [Shell]?", loop detection) are boxes with `● 1.` choices
 *   drawn in place of the input box and its footer.
 * What a person typed earlier stays in the transcript in the same half-block frame, so the box is found
 * from the footer up, never from the frames.
 */
import { boxless, type Screen } from '../screen.js';
import { plain } from './sgr.js';

const FRAME = /^(?:▄{20,}|▀{20,})$/;
const RULE = /^─{20,}$/;
const FOOTER = /^\s*workspace\b.*\bsandbox\b|\bsandbox\b.*\/model\s*$/;
const PROMPT = /^ ([>*!]) ?(.*)$/;
const PLACEHOLDER = 'Type your message or @path/to/file';
const BUSY = /^\s*[\u2801-\u28FF]\s.*\(esc to cancel/;
const DIALOG = [
  /●\s*\d+\.\s+\S/,
  /Allow execution of/,
  /Do you trust the files/i,
  /Do you want to/i,
  /A potential loop was detected/,
];

export function readGeminiScreen(lines: string[]): Screen {
  const text = lines.map(plain);
  let footer = -1;
  for (let i = text.length - 1; i >= 0 && footer < 0; i--) if (FOOTER.test(text[i]!)) footer = i;
  let rule = -1;
  for (let i = footer - 1; i >= 0 && rule < 0; i--) if (RULE.test(text[i]!.trim())) rule = i;
  // The box: below the rule and the mode line, without its frame (or the blank line drawn in its place
  // when the terminal has no true colour), down to the footer.
  const region = rule < 0 ? [] : text.slice(rule + 2, footer).filter((l) => !FRAME.test(l.trim()));
  const box = region.slice(
    Math.max(
      0,
      region.findIndex((l) => l.trim() !== ''),
    ),
  );
  const first = PROMPT.exec(box[0] ?? '');
  if (footer < 0 || !first) {
    const clean = (l: string) => l.replace(/^[\s│]+|[\s│]+$/g, '');
    return boxless(text, DIALOG, '(empty screen; Gemini CLI may be starting)', clean);
  }
  const busy = text.slice(Math.max(0, rule - 4), rule).some((l) => BUSY.test(l));
  const input = [first[2]!, ...box.slice(1).map((l) => l.replace(/^ {3}/, ''))].join('\n').trim();
  if (input === '' || input === PLACEHOLDER) return { state: 'ready', busy };
  return { state: 'holding', busy, input };
}
