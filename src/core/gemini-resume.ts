/**
 * Gemini CLI 0.61.0 sends every earlier tool result once more per resume (an upstream bug, measured): its chat
 * file keeps a result twice — in the `gemini` message's `toolCalls[].result` and as a `user` message of
 * `functionResponse` parts — and a resume builds the history from both. The API refuses a request with two
 * responses for one call, and every baton turn has a tool call (`baton post`): a resumed agent would fail.
 *
 * The repair, before each resume: `user` messages made only of responses the `gemini` message before them
 * already holds are left out, by one appended `$set.messages` line (the CLI's own way; nothing earlier
 * changes). Measured with the real client: the request after the resume then has one response per call.
 */
import { chatEntries } from './tokens-gemini.js';

type Part = Record<string, unknown>;
type Message = Record<string, unknown>;

/** The calls a `gemini` message holds with their results: the CLI makes their responses from these. */
const callIds = (m: Message): Set<string> => {
  const ids = new Set<string>();
  if (Array.isArray(m.toolCalls))
    for (const c of m.toolCalls)
      if (c && typeof c === 'object' && typeof c.id === 'string' && Array.isArray(c.result) && c.result.length)
        ids.add(c.id);
  return ids;
};

/** The id of each part when every one is a functionResponse (else null: a prompt, or something else). */
function responseIds(m: Message): string[] | null {
  if (m.type !== 'user' || !Array.isArray(m.content) || !m.content.length) return null;
  const ids: string[] = [];
  for (const p of m.content as Part[]) {
    const r = p && typeof p === 'object' ? (p.functionResponse as Part | undefined) : undefined;
    if (!r || typeof r.id !== 'string') return null;
    ids.push(r.id);
  }
  return ids;
}

/** The line to append to a Gemini CLI chat file before resuming it, or null when it needs none. */
export function geminiResumeRepair(text: string): string | null {
  const entries = text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => {
      try {
        return JSON.parse(l) as unknown;
      } catch {
        return null;
      }
    });
  // The chat's messages as the file says they are now, every type kept (info and error lines too).
  const messages: Message[] = chatEntries(entries, (e) => typeof e.type === 'string' && 'id' in e);
  let calls = new Set<string>();
  const kept = messages.filter((m) => {
    if (m.type === 'gemini') {
      calls = callIds(m);
      return true;
    }
    const ids = responseIds(m);
    return !ids?.every((id) => calls.has(id));
  });
  if (kept.length === messages.length) return null;
  return JSON.stringify({ $set: { messages: kept } });
}
