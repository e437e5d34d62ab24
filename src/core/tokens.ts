/**
 * Token budgets: what one turn of an agent cost, from its CLI's transcript, summed per agent
 * and per conversation in the state; `turns.max_tokens` ends the conversation like max_turns does.
 * Runaway agent-to-agent loops that burn tokens are the top cost complaint with tools like this one.
 *
 * Claude Code's transcript (measured on the real CLI): when Stop runs it is not complete yet; the turn is
 * complete once a `{"type":"system","subtype":"turn_duration"}` record follows it. A turn's entries are the
 * descendants (by `parentUuid`, not line order) of the `user` entry whose `promptId` is the hook's
 * `prompt_id`, up to the next prompt (an entry with another promptId, which hangs off this turn's last);
 * assistant entries of one API message share its `message.id` and carry its `usage` once.
 */

export interface Usage {
  input: number;
  output: number;
  cache_creation: number;
  cache_read: number;
}

export const NO_USAGE: Usage = { input: 0, output: 0, cache_creation: 0, cache_read: 0 };

/** What counts against turns.max_tokens: every token the model read or wrote. */
export const totalOf = (u: Usage): number => u.input + u.output + u.cache_creation + u.cache_read;

export const addUsage = (a: Usage, b: Usage): Usage => ({
  input: a.input + b.input,
  output: a.output + b.output,
  cache_creation: a.cache_creation + b.cache_creation,
  cache_read: a.cache_read + b.cache_read,
});

interface Entry {
  type?: string;
  subtype?: string;
  uuid?: string;
  parentUuid?: string | null;
  promptId?: string;
  message?: { id?: string; usage?: Record<string, unknown> };
}

const n = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/**
 * One turn's usage from the transcript's entries. `complete`: its turn_duration record is there (until
 * then more entries may come). Null usage: the prompt is not in the transcript (yet).
 */
export function turnUsage(entries: readonly unknown[], promptId: string): { complete: boolean; usage: Usage | null } {
  const all = entries.filter((e): e is Entry => !!e && typeof e === 'object') as Entry[];
  const root = all.find((e) => e.type === 'user' && e.promptId === promptId && e.uuid);
  if (!root) return { complete: false, usage: null };
  const children = new Map<string, Entry[]>();
  for (const e of all) if (e.parentUuid) children.set(e.parentUuid, [...(children.get(e.parentUuid) ?? []), e]);
  const byMessage = new Map<string, Usage>();
  let complete = false;
  const seen = new Set<string>();
  const queue = [root];
  while (queue.length) {
    const e = queue.shift()!;
    if (!e.uuid || seen.has(e.uuid)) continue;
    seen.add(e.uuid);
    if (e.type === 'system' && e.subtype === 'turn_duration') complete = true;
    const u = e.type === 'assistant' ? e.message?.usage : undefined;
    if (u && e.message?.id)
      byMessage.set(e.message.id, {
        input: n(u.input_tokens),
        output: n(u.output_tokens),
        cache_creation: n(u.cache_creation_input_tokens),
        cache_read: n(u.cache_read_input_tokens),
      });
    // The next prompt hangs off this turn's last entry: its entries are the next turn's, not this one's.
    queue.push(...(children.get(e.uuid) ?? []).filter((c) => c.promptId === undefined || c.promptId === promptId));
  }
  return { complete, usage: [...byMessage.values()].reduce(addUsage, NO_USAGE) };
}
