/**
 * What a hook note says of a dialog, whichever client wrote it (payloads measured on Claude Code 2.1.197 /
 * 2.1.332, Codex 0.169.0, Gemini CLI 0.61.0):
 *
 * | | a dialog opened | what it asks |
 * |---|---|---|
 * | Claude Code | PermissionRequest (no tool_use_id); Notification `permission_prompt` ~6 s later, once | `tool_name`, `tool_input` (AskUserQuestion: `questions`) |
 * | Codex | PermissionRequest (`tool_name` "Bash"; no tool_use_id, a `turn_id`) | `tool_input.command`, `.description` (the justification) |
 * | Gemini CLI | Notification `notification_type: "ToolPermission"` | `details`: `exec` (`command`), `edit` (`fileName`), `ask_user` |
 *
 * A dialog closes by a hook only when its tool ran (PostToolUse, PostToolUseFailure, AfterTool) or the turn
 * went on (a prompt, a turn's end); "No" and Esc fire none — the screen shows those (blocked.ts).
 */
import type { DialogKind } from './dialog.js';
import { capLine } from './dialog.js';
import type { HookNote } from './hook-note.js';

export interface HookDialog {
  kind: DialogKind;
  question: string;
  /** Says only that some dialog waits (Claude Code's late Notification, Gemini's ask_user): opens one when none
   * is known, never replaces a PermissionRequest's words, and gives way to what the screen shows it asks. */
  vague: boolean;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v : null);
const obj = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/** A tool and its input in one line: `Bash: echo hi > f.txt`, `Write: /abs/w.txt`, else the input as JSON. */
function toolLine(tool: string, input: Record<string, unknown>): string {
  const main =
    str(input.command) ?? str(input.file_path) ?? str(input.path) ?? str(input.url) ?? str(input.notebook_path);
  const why = str(input.description);
  if (main) return capLine(`${tool}: ${main}${why ? ` (${why})` : ''}`);
  const json = JSON.stringify(input);
  return capLine(json && json !== '{}' ? `${tool}: ${json}` : tool);
}

/** The questions of Claude Code's AskUserQuestion, one line. */
function questions(input: Record<string, unknown>): string | null {
  const qs = Array.isArray(input.questions) ? input.questions : [];
  const text = qs.map((q) => str(obj(q).question)).filter((q): q is string => q !== null);
  return text.length ? capLine(text.join(' / ')) : null;
}

/** The dialog a `permission` note reports, or null when it reports none (a notification of another kind). */
export function dialogFromHook(kind: string, note: HookNote): HookDialog | null {
  if (note.event !== 'permission') return null;
  const p = note.payload;
  const event = str(p.hook_event_name);
  if (kind === 'gemini') {
    if (event !== 'Notification' || p.notification_type !== 'ToolPermission') return null;
    const d = obj(p.details);
    // Its details name no question (`{type, title: "Ask User"}`): the screen says what it asks.
    if (d.type === 'ask_user') return { kind: 'question', question: capLine(str(d.title) ?? 'Ask User'), vague: true };
    const what =
      d.type === 'exec'
        ? `Shell: ${str(d.command) ?? ''}`
        : d.type === 'edit'
          ? `Edit: ${str(d.fileName) ?? str(d.filePath) ?? ''}`
          : (str(d.title) ?? str(p.message) ?? 'a tool');
    return { kind: 'permission', question: capLine(what), vague: false };
  }
  if (event === 'Notification') {
    const type = p.notification_type;
    if (type !== 'permission_prompt' && type !== 'elicitation_dialog') return null;
    const question = capLine(str(p.message) ?? 'a dialog waits');
    return { kind: type === 'elicitation_dialog' ? 'question' : 'permission', question, vague: true };
  }
  const tool = str(p.tool_name) ?? 'a tool';
  const input = obj(p.tool_input);
  if (tool === 'AskUserQuestion') return { kind: 'question', question: questions(input) ?? 'a question', vague: false };
  return { kind: 'permission', question: toolLine(tool, input), vague: false };
}

/** Does this note say the agent's dialog (if it had one) is closed: its tool ran, or the turn went on or ended? */
export const closesDialog = (note: HookNote): boolean =>
  note.event === 'ran' || note.event === 'prompt' || note.event === 'stop';
