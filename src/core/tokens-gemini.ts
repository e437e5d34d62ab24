/**
 * One Gemini CLI turn's usage, from its chat file (its hooks' `transcript_path`). Measured on Gemini CLI 0.61.0:
 *
 * - JSONL: a header, messages, and `{"$set": {…}}` lines. A `$set.messages` replaces the whole list (a resume
 *   writes one with every earlier message), and a later line with the same `id` replaces the earlier one (a
 *   reply with a tool call is written twice, first without its `toolCalls`): counted once, by id.
 * - A model reply is `type: "gemini"` with `model` and `tokens: {input, output, cached, thoughts, tool, total}`;
 *   `input` includes `cached`. A prompt is `type: "user"` with text parts; so is a tool's `functionResponse`.
 * - A turn is its prompt (as its BeforeAgent/AfterAgent hooks report it) and every reply up to the next one.
 *
 * Not the hooks: `AfterModel` fires per streamed chunk and drops the cached and thinking counts. The model
 * router's request before every prompt is recorded nowhere locally, so it is not counted.
 */
import { n, type ModelUsage, type TurnRead, byModel } from './tokens.js';

type Entry = Record<string, unknown>;

interface Message {
  id?: unknown;
  type?: unknown;
  content?: unknown;
  model?: unknown;
  tokens?: Record<string, unknown>;
  toolCalls?: unknown;
}

/**
 * The entries of a chat file as the file says they are now, those `keep` accepts: `$set.messages` resets
 * them, a repeated id replaces (core/gemini-resume.ts reads the file this way too, every type kept).
 */
export function chatEntries(entries: readonly unknown[], keep: (e: Entry) => boolean): Entry[] {
  let list: Entry[] = [];
  let at = new Map<string, number>();
  const add = (m: Entry) => {
    const id = typeof m.id === 'string' ? m.id : null;
    if (id !== null && at.has(id)) list[at.get(id)!] = m;
    else {
      if (id !== null) at.set(id, list.length);
      list.push(m);
    }
  };
  for (const e of entries) {
    if (!e || typeof e !== 'object') continue;
    const set = (e as { $set?: { messages?: unknown } }).$set;
    if (set && typeof set === 'object') {
      if (Array.isArray(set.messages)) {
        list = [];
        at = new Map();
        for (const m of set.messages) if (m && typeof m === 'object') add(m as Entry);
      }
      continue;
    }
    if (keep(e as Entry)) add(e as Entry);
  }
  return list;
}

/** The chat's messages as the file says they are now: the user's and the model's. */
export function geminiMessages(entries: readonly unknown[]): Message[] {
  return chatEntries(entries, (e) => e.type === 'user' || e.type === 'gemini') as Message[];
}

const texts = (content: unknown): string[] | null =>
  Array.isArray(content)
    ? content.flatMap((c) =>
        typeof (c as { text?: unknown })?.text === 'string' ? [(c as { text: string }).text] : [],
      )
    : null;

/** A prompt's text (a tool result, `functionResponse`, is no prompt: null). */
function promptText(m: Message): string | null {
  if (m.type !== 'user') return null;
  if (typeof m.content === 'string') return m.content;
  const t = texts(m.content);
  return t?.length ? t.join('') : null;
}

/** A message's text: its content, or its text parts joined. */
export const replyText = (content: unknown): string =>
  typeof content === 'string' ? content : (texts(content)?.join('') ?? '');

/**
 * The turn whose prompt is `prompt` (the last one with that text), from a chat file's entries. Complete once
 * a next prompt follows it, or its last reply is text with no tool call left to answer.
 */
export function geminiTurn(entries: readonly unknown[], prompt: string): TurnRead {
  const messages = geminiMessages(entries);
  const start = messages.map((m) => promptText(m)?.trim()).lastIndexOf(prompt.trim());
  if (start < 0) return { complete: false, parts: null };
  const parts: ModelUsage[] = [];
  let complete = false;
  let last: Message | null = null;
  for (const m of messages.slice(start + 1)) {
    if (promptText(m) !== null) {
      complete = true;
      break;
    }
    if (m.type !== 'gemini') continue;
    last = m;
    const t = m.tokens;
    if (!t || typeof t !== 'object') continue;
    const cached = n(t.cached);
    parts.push({
      model: typeof m.model === 'string' ? m.model : null,
      usage: {
        // Tool-use prompt tokens are read as input; thinking is written output, billed as output.
        input: Math.max(0, n(t.input) - cached) + n(t.tool),
        output: n(t.output) + n(t.thoughts),
        cache_creation: 0,
        cache_read: cached,
      },
    });
  }
  if (!complete && last) complete = replyText(last.content).trim() !== '' && !last.toolCalls;
  return { complete, parts: byModel(parts) };
}
