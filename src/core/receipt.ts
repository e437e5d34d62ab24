/**
 * Delivery verified by the agent itself: the screen shows only that the text left the input box, not that the
 * model got it whole. Agent CLIs run hooks with the exact prompt the model receives (Claude Code's
 * UserPromptSubmit: the API request's user text in 460 of 460 measured messages) and each turn's final reply;
 * baton's hook drops each as a note into a spool the daemon reads. This module says what a note means.
 *
 * What the client does to text before the model sees it (measured on the real Claude Code): CRLF → two LFs,
 * NFD → NFC, trailing blanks trimmed, on 2.1.330 lone zero-width characters removed, and a paste shown as
 * `[Pasted text #N]` wrapped in `<pasted_content id="…">` … `</pasted_content id="…">`. A receipt is
 * intact when the prompt, unwrapped and normalised that way, holds the typed text normalised the same way.
 */
import { z } from 'zod';

import { RECORD_ID_SOURCE } from './ids.js';
import { CATCH_UP_CLOSER, CATCH_UP_OPENER, CATCH_UP_OPENER_NAMES } from './compose.js';
import { HOOK_EVENTS, type HookNote } from './hook-note.js';
import { LINE_START, linesOf } from './lines.js';

/** A spooled note as read back: anything else in the spool is not baton's and is set aside. */
export const HookNoteSchema: z.ZodType<HookNote> = z.object({
  event: z.enum(HOOK_EVENTS),
  agent: z.string(),
  at: z.string(),
  payload: z.record(z.string(), z.unknown()),
});

/** The model received it (`received` on the record): `intact`, the prompt held the typed text as rewritten. */
export type Received = { at: string; intact: boolean; prompt_id?: string };

/** An agent's state as its hooks report it (status, the dashboard). */
export type AgentHookState =
  | { state: 'busy'; since: string; prompt_id?: string }
  | { state: 'idle'; since: string }
  | { state: 'permission'; since: string; detail?: string };

// At a line's start as lines.ts defines it (LF alone): with the `m` flag, a header forged after a U+2028 in
// a message's content was taken for a real one.
const HEADER = new RegExp(`${LINE_START}\\[baton\\] (${RECORD_ID_SOURCE})\\b`, 'g');

/** The IDs of baton's messages in a prompt, in order (several when the client merged queued messages). */
export const idsIn = (prompt: string): string[] => [...prompt.matchAll(HEADER)].map((m) => m[1]!);

/**
 * The IDs whose headers in the prompt baton typed, in order: a line `[baton] msg_0005 …` inside a message's
 * own content (its sender wrote it) is no receipt of msg_0005 — else a reply quoting a header marked an
 * older, lost message received, and it was never typed again. Read in prompt order: a header counts unless
 * it lies in the content of a message counted before it, found after that one's header (`contentOf`: its
 * content as typed). A content the client rewrote past finding leaves its quotes counted, as before.
 */
export function genuineIds(prompt: string, contentOf: (id: string) => string | undefined): string[] {
  const p = comparable(prompt);
  const ids: string[] = [];
  let inContentUntil = -1;
  for (const m of p.matchAll(HEADER)) {
    if (m.index < inContentUntil) continue;
    const id = m[1]!;
    if (!ids.includes(id)) ids.push(id);
    // Its first occurrence after its header: never past where its content really ends.
    const c = comparable(contentOf(id) ?? '');
    const at = c ? p.indexOf(c, m.index) : -1;
    if (at >= 0) inContentUntil = Math.max(inContentUntil, at + c.length);
  }
  return ids;
}

const PASTED = /\n*<pasted_content id="[^"]*">\n([\s\S]*?)\n<\/pasted_content id="[^"]*">\n?/g;
const ZERO_WIDTH = /\u200B|\u200D|\uFEFF/g;

/**
 * Text as the model sees it, for comparing: unwrapped, CRLF as the client makes it, NFC, a TAB as Claude Code's
 * four spaces (measured; Codex and Gemini keep TABs, and both sides get the same), blanks trimmed.
 */
export function comparable(text: string): string {
  return linesOf(
    text
      .replace(PASTED, (_m, inner: string) => `\n${inner}\n`)
      .replace(/\t/g, '    ')
      .replace(/\r\n/g, '\n\n')
      .replace(/\r/g, '\n')
      .normalize('NFC')
      .replace(ZERO_WIDTH, ''),
  )
    .map((l) => l.replace(/[ \t]+$/, ''))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * Did the prompt hold message `id`'s content as typed: after its header line, up to the hint under it (a blank
 * line, then `[baton] …`)? With a person's own template, whose shape is not known, the whole prompt is searched.
 */
export function isIntact(id: string, content: string, prompt: string): boolean {
  const c = comparable(content);
  if (!c) return false;
  const p = comparable(prompt);
  const at = p.search(new RegExp(`${LINE_START}\\[baton\\] ${id}\\b`));
  if (at < 0) return p.includes(c);
  let afterHeader = p.slice(p.indexOf('\n', at) + 1);
  // A catch-up (docs/protocol.md §11) between the header and the content: the content starts after it.
  if (afterHeader.startsWith(`${CATCH_UP_OPENER}\n`) || afterHeader.startsWith(`${CATCH_UP_OPENER_NAMES}\n`)) {
    const close = afterHeader.indexOf(`\n${CATCH_UP_CLOSER}\n`);
    if (close < 0) return false;
    afterHeader = afterHeader.slice(close + CATCH_UP_CLOSER.length + 2);
  }
  const end = afterHeader.indexOf('\n\n[baton] ');
  return comparable(end < 0 ? afterHeader : afterHeader.slice(0, end)) === c || (end < 0 && afterHeader.startsWith(c));
}

/** Did the prompt hold the whole text baton typed, as the client rewrites it? (When the daemon knows what it typed.) */
export function holdsTyped(typed: string, prompt: string): boolean {
  const t = comparable(typed);
  return t !== '' && comparable(prompt).includes(t);
}

/** How an agent's turns reach the conversation (config `agents.<name>.reply`). */
export const REPLY_MODES = ['post', 'auto', 'both'] as const;
export type ReplyMode = (typeof REPLY_MODES)[number];

/**
 * Should the reply at the end of an agent's turn be posted for it? Only when it holds the turn, the turn began
 * with a message to it, and nothing of its own was posted since — never two messages for one turn. `answered`:
 * the message an automatic reply was already written for. Paused, it is still posted and waits for `baton
 * resume`: a budget pauses while the turn that reached it still runs, and dropping its reply lost the answer.
 */
export function autoReply(input: {
  mode: ReplyMode;
  agent: string;
  /** The state's turn holder and the message that gave it the turn ('opening': none yet, it speaks first). */
  holder: string;
  lastMessage: { id: string; receiver: string } | 'opening' | null;
  /** Its messages stored and not yet delivered. */
  waitingFromAgent: number;
  answered: string | null;
  /** The turn that ended is the one that message opened (its prompt carried it; for the opening, the topic). */
  endsThatTurn: boolean;
  finished: boolean;
  paused: boolean;
  reply: string | null;
}): { post: true; replyTo: string | null } | { post: false; why: string } {
  if (input.mode === 'post') return { post: false, why: 'reply is "post": the agent posts itself' };
  if (input.finished) return { post: false, why: 'the conversation has finished' };
  if (input.holder !== input.agent) return { post: false, why: `${input.agent} does not hold the turn` };
  const last = input.lastMessage;
  if (!last || (last !== 'opening' && last.receiver !== input.agent))
    return { post: false, why: `${input.agent}'s turn did not begin with a message to it` };
  const key = last === 'opening' ? 'opening' : last.id;
  if (!input.endsThatTurn)
    return { post: false, why: `the turn that ended is not the one ${last === 'opening' ? 'the topic' : key} opened` };
  if (input.answered === key)
    return { post: false, why: last === 'opening' ? 'already opened the conversation' : `already answered ${key}` };
  if (input.waitingFromAgent > 0) return { post: false, why: `${input.agent} posted its reply itself` };
  if (!input.reply) return { post: false, why: 'the turn ended without a reply' };
  return { post: true, replyTo: last === 'opening' ? null : last.id };
}
