/**
 * One Codex turn's usage, from its session log (the rollout its hooks name in `transcript_path`). Measured on
 * Codex 0.169.0 against a mock giving every request distinct numbers: after each model request a
 * `token_usage_record` line's `payload.turn_token_usage` sums the turn's requests so far (two requests, 3234 +
 * 4234 input = 7468); an `event_msg` of `payload.type` `task_complete` ends the turn (same `turn_id`), and the
 * turn's `turn_context` line names its model. Not the `PostModelRequest` hook: a process per model request,
 * while the log is read once per turn. The title request before a session's first prompt is in neither.
 * Codex's counts follow OpenAI's: `input_tokens` includes the cached ones, `output_tokens` the reasoning.
 */
import { n, type TurnRead, type Usage } from './tokens.js';

interface Line {
  type?: unknown;
  payload?: { type?: unknown; turn_id?: unknown; model?: unknown; turn_token_usage?: Record<string, unknown> };
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
