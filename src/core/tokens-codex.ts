/**
 * One Codex turn's usage, from its session log (the rollout, `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-…-<id>.jsonl`,
 * which its hooks name in `transcript_path`). Measured on Codex 0.169.0 against a mock that gave every request
 * distinct usage numbers: after each model request the log gets a `token_usage_record` line —
 * `payload: {turn_id, usage, turn_token_usage, thread_token_usage}` — where `turn_token_usage` is the sum of
 * the turn's requests so far (a turn with a tool call: two requests, 3234 + 4234 input = 7468); the turn ends
 * with an `event_msg` whose `payload.type` is `task_complete` (same `turn_id`), and its model is in the
 * `turn_context` line of that turn (and in every hook payload).
 *
 * Why the log and not the hooks: Codex also reports each request's usage to a `PostModelRequest` hook, but a
 * hook is a process per model request (a turn with tool calls makes several), while the log is there anyway
 * and read once per turn, from where the last look ended. The title request Codex makes before a session's
 * first prompt is in neither (its usage is not recorded anywhere locally).
 *
 * Codex's counts follow OpenAI's: `input_tokens` includes the cached ones, `output_tokens` the reasoning.
 */
import { n, type TurnRead, type Usage } from './tokens.js';

interface Line {
  type?: unknown;
  payload?: {
    type?: unknown;
    turn_id?: unknown;
    model?: unknown;
    turn_token_usage?: Record<string, unknown>;
  };
}

/** OpenAI-style counts (input and cache writes include the cached part) as baton's Usage. */
export function codexUsage(u: Record<string, unknown>): Usage {
  const cached = n(u.cached_input_tokens);
  const written = n(u.cache_write_input_tokens);
  return {
    input: Math.max(0, n(u.input_tokens) - cached - written),
    output: n(u.output_tokens),
    cache_creation: written,
    cache_read: cached,
  };
}

/**
 * The turn `turnId` from a rollout's lines: the last running sum recorded for it, and its model. Complete once
 * its `task_complete` is there. `model`: the model the hook named, used when the log names none.
 */
export function codexTurn(entries: readonly unknown[], turnId: string, model: string | null = null): TurnRead {
  let usage: Usage | null = null;
  let complete = false;
  let named = model;
  for (const e of entries as Line[]) {
    const p = e?.payload;
    if (!p || typeof p !== 'object' || p.turn_id !== turnId) continue;
    if (e.type === 'token_usage_record' && p.turn_token_usage && typeof p.turn_token_usage === 'object')
      usage = codexUsage(p.turn_token_usage);
    else if (e.type === 'turn_context' && typeof p.model === 'string') named = p.model;
    else if (e.type === 'event_msg' && p.type === 'task_complete') complete = true;
  }
  // A turn that made no request (an interrupted one) is complete with nothing used.
  if (!usage) return complete ? { complete, parts: [] } : { complete, parts: null };
  return { complete, parts: [{ model: named, usage }] };
}
