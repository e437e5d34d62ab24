/**
 * Claude Code's screen (measured on 2.1.197 and 2.1.330): the input box between two rules, the prompt
 * `❯`, a spinner or "esc to interrupt" while a turn runs, and the dialogs it stops at.
 */
import { boxless, type Screen } from '../screen.js';

/** A horizontal rule of the input box: a run of box-drawing dashes filling most of the line. */
const RULE = /^\s*─{20,}\s*$/;
/** The prompt: ❯ then a (no-break) space; continuation lines are indented two spaces. */
const PROMPT = /^❯[\s\u00A0]?(.*)$/;
/** Shown in an empty box after a message was queued while the agent was busy. */
const QUEUED_PLACEHOLDER = /^Press up to edit queued messages/;
/** A turn is running: a spinner line (· ✢ ✳ ✶ ✻ ✽ * then a verb and "…") or "esc to interrupt". */
const SPINNER = /^[·✢✳✶✻✽*]\s+\S.*…/;
const BUSY_FOOTER = /esc to interrupt/;
/** Dialogs: numbered choices with a pointer, or the usual questions. */
const DIALOG = [/^\s*❯\s*\d+\.\s+\S/, /Do you want to/i, /Do you trust/i, /\(y\/n\)/i, /Enter to confirm/i];

export function readClaudeScreen(lines: string[]): Screen {
  const text = lines.map((l) => l.replace(/\s+$/, ''));
  // The input box is the last pair of rules with a prompt line right below the upper one.
  for (let bottom = text.length - 1; bottom > 0; bottom--) {
    if (!RULE.test(text[bottom]!)) continue;
    let top = bottom - 1;
    while (top >= 0 && !RULE.test(text[top]!)) top--;
    if (top < 0) break;
    const inside = text.slice(top + 1, bottom);
    const first = PROMPT.exec(inside[0] ?? '');
    if (!first) {
      bottom = top + 1; // not the input box; keep looking above it
      continue;
    }
    const input = [first[1]!, ...inside.slice(1).map((l) => l.replace(/^ {2}/, ''))]
      .join('\n')
      .replace(/\u00A0/g, ' ')
      .trim();
    const around = [...text.slice(Math.max(0, top - 3), top), ...text.slice(bottom + 1)];
    const busy =
      around.some((l) => SPINNER.test(l.trim())) ||
      text.slice(bottom + 1).some((l) => BUSY_FOOTER.test(l) && !/paste again/.test(l));
    if (input === '' || QUEUED_PLACEHOLDER.test(input)) return { state: 'ready', busy };
    return { state: 'holding', busy, input };
  }
  return boxless(text, DIALOG, '(empty screen)');
}
