/**
 * Token budgets: what one turn of an agent cost, from its CLI's transcript, summed per agent and per
 * conversation in the state; `turns.max_tokens` ends the conversation (runaway agent loops that burn tokens
 * are the top cost complaint with tools like this). tokens-codex.ts and tokens-gemini.ts read the same Usage:
 * `input` read fresh (never the cached part), `cache_read` from the provider's cache, `cache_creation` written
 * to it, `output` every token written (thinking too).
 *
 * Claude Code's transcript (measured on the real CLI): when Stop runs it is not complete yet; the turn is
 * complete once a `{"type":"system","subtype":"turn_duration"}` record follows it. A turn's entries are the
 * descendants (by `parentUuid`, not line order) of the `user` entry whose `promptId` is the hook's
 * `prompt_id`, up to the next prompt (an entry with another promptId, which hangs off this turn's last);
 * assistant entries of one API message share its `message.id` and carry its `usage` once.
 */

export type Usage = { input: number; output: number; cache_creation: number; cache_read: number };

export const NO_USAGE: Usage = { input: 0, output: 0, cache_creation: 0, cache_read: 0 };

/** What counts against turns.max_tokens: every token the model read or wrote. */
export const totalOf = (u: Usage): number => u.input + u.output + u.cache_creation + u.cache_read;

export const addUsage = (a: Usage, b: Usage): Usage => ({
  input: a.input + b.input,
  output: a.output + b.output,
  cache_creation: a.cache_creation + b.cache_creation,
  cache_read: a.cache_read + b.cache_read,
});

/** What one model (as the client recorded it, null: none) used in a turn; a turn may use several. */
export type ModelUsage = { model: string | null; usage: Usage };

/** One turn read from a transcript: `complete`, nothing more of it can come; `parts` null, it is not there yet. */
export type TurnRead = { complete: boolean; parts: ModelUsage[] | null };

/** Every part's usage summed. */
export const usageOf = (parts: readonly ModelUsage[]): Usage => parts.map((p) => p.usage).reduce(addUsage, NO_USAGE);

/** Parts by model: usage of one model summed (in the order each model first came). */
export function byModel(parts: readonly ModelUsage[]): ModelUsage[] {
  const out = new Map<string | null, Usage>();
  for (const p of parts) out.set(p.model, addUsage(out.get(p.model) ?? NO_USAGE, p.usage));
  return [...out].map(([model, usage]) => ({ model, usage }));
}

interface Entry {
  type?: string;
  subtype?: string;
  uuid?: string;
  parentUuid?: string | null;
  promptId?: string;
  message?: { id?: string; model?: unknown; usage?: Record<string, unknown> };
}

/** The model Claude Code writes on the entries it makes itself at a resume ("No response requested."): no request. */
const SYNTHETIC = '<synthetic>';

/** A token count as a transcript gives it: anything but a finite count of zero or more (the agent can write its transcript) is 0. */
export const n = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0);

/** One turn's usage, `complete` once its turn_duration record is there; null while its prompt is not. */
export function turnUsage(entries: readonly unknown[], promptId: string): { complete: boolean; usage: Usage | null } {
  const t = claudeTurn(entries, promptId);
  return { complete: t.complete, usage: t.parts && usageOf(t.parts) };
}

/**
 * One Claude Code turn, by model (`message.model` of each assistant entry; at a resume Claude Code writes an
 * entry of its own, model `<synthetic>`, usage all 0, which no request made: left out).
 */
export function claudeTurn(entries: readonly unknown[], promptId: string): TurnRead {
  const all = entries.filter((e): e is Entry => !!e && typeof e === 'object') as Entry[];
  const root = all.find((e) => e.type === 'user' && e.promptId === promptId && e.uuid);
  if (!root) return { complete: false, parts: null };
  const children = new Map<string, Entry[]>();
  for (const e of all) if (e.parentUuid) children.set(e.parentUuid, [...(children.get(e.parentUuid) ?? []), e]);
  const byMessage = new Map<string, ModelUsage>();
  let complete = false;
  const seen = new Set<string>();
  const queue = [root];
  while (queue.length) {
    const e = queue.shift()!;
    if (!e.uuid || seen.has(e.uuid)) continue;
    seen.add(e.uuid);
    if (e.type === 'system' && e.subtype === 'turn_duration') complete = true;
    const u = e.type === 'assistant' ? e.message?.usage : undefined;
    const model = typeof e.message?.model === 'string' ? e.message.model : null;
    if (u && e.message?.id && model !== SYNTHETIC)
      byMessage.set(e.message.id, {
        model,
        usage: {
          input: n(u.input_tokens),
          output: n(u.output_tokens),
          cache_creation: n(u.cache_creation_input_tokens),
          cache_read: n(u.cache_read_input_tokens),
        },
      });
    // The next prompt hangs off this turn's last entry: its entries are the next turn's, not this one's.
    queue.push(...(children.get(e.uuid) ?? []).filter((c) => c.promptId === undefined || c.promptId === promptId));
  }
  return { complete, parts: byModel([...byMessage.values()]) };
}
