/**
 * What a hook note says, whichever CLI wrote it. The three CLIs report the same moments with different
 * payloads (measured on the real clients):
 *
 * | | the prompt | the turn it belongs to | the final reply |
 * |---|---|---|---|
 * | Claude Code | UserPromptSubmit `prompt` | `prompt_id` (Stop has it too) | Stop `last_assistant_message` |
 * | Codex | UserPromptSubmit `prompt` | `turn_id` (steered messages share it) | Stop `last_assistant_message` |
 * | Gemini CLI | BeforeAgent `prompt` | none: AfterAgent repeats the `prompt` | the transcript (*) |
 *
 * (*) Not AfterAgent's `prompt_response`: it repeats streamed chunks (not exact in 5/5).
 *
 * Pure: the daemon reads the transcript when `replyFrom` says so.
 */
import type { HookNote } from './hook-note.js';
import { replyText } from './tokens-gemini.js';

/**
 * `prompt`: the text the model received, or the prompt of the turn that ended (Gemini's stop); `turn`: Claude
 * Code's prompt_id, Codex's turn_id; `reply`: the exact final reply when the payload carries it, else
 * (`replyFrom`) in the transcript.
 */
export interface HookFacts {
  prompt: string | null;
  turn: string | null;
  reply: string | null;
  replyFrom: 'payload' | 'transcript';
  transcript: string | null;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

export function factsOf(kind: string, note: HookNote): HookFacts {
  const p = note.payload;
  const transcript = str(p.transcript_path);
  if (kind === 'gemini') return { prompt: str(p.prompt), turn: null, reply: null, replyFrom: 'transcript', transcript };
  const reply = str(p.last_assistant_message);
  return {
    prompt: str(p.prompt),
    turn: str(kind === 'codex' ? p.turn_id : p.prompt_id),
    reply: reply?.trim() ? reply : null,
    replyFrom: 'payload',
    transcript,
  };
}

/**
 * The model's last reply in the latest turn of a Gemini CLI transcript (JSONL records; the model's are
 * `type: "gemini"` with its text in `content`, a prompt is `type: "user"`), or null when that turn has no
 * text yet — never a reply of an earlier turn.
 */
export function lastGeminiReply(entries: readonly unknown[]): string | null {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i] as { type?: unknown; content?: unknown } | null;
    if (e?.type === 'user') return null;
    if (e?.type !== 'gemini') continue;
    const text = replyText(e.content);
    if (text.trim()) return text;
  }
  return null;
}
