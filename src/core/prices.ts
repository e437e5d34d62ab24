/**
 * The price table baton ships: USD per million tokens, each vendor's pay-as-you-go rate for the clients'
 * default models and common alternatives; config.json's `pricing` replaces or adds models. A model not here
 * has no price (`status` says so) — a guess would be worse than nothing.
 *
 * Taken on 2026-11-28 from:
 * - Anthropic: platform.claude.com/docs/en/about-claude/pricing ("Model pricing": base input, 5-minute cache
 *   writes, cache hits, output). Claude Code 2.1.197 sends `claude-opus-4-8` by default.
 * - OpenAI: developers.openai.com/api/docs/models/gpt-5-codex (its page's price card), and
 *   developers.openai.com/api/docs/models/gpt-6.1-sol as quoted on its release (LiteLLM's announcement and
 *   others, September–October 2026): $2 input, $0.10 cached input, $10 output for requests of at most 272K
 *   input tokens (twice the input rates and 1.5× the output above that: not modelled). Codex 0.169.0 sends
 *   `gpt-6.1-sol` when its config names no model. gpt-5.1-codex's own price card was not found: left out.
 * - Google: ai.google.dev/gemini-api/docs/pricing, as transcribed on 2026-09-20 and 2026-10-07 (api-evangelist's
 *   harvest of that page), with Gemini 3.8 Flash's cache-read price from LiteLLM's announcement of it. 3.8
 *   Flash's rates are introductory until 2026-12-31 ($1.50 / $7.50 from 2027-01-01). Gemini CLI 0.61.0 in
 *   "Auto" routes a prompt to `gemini-3.8-flash` or `gemini-3.1-pro-preview-customtools` (the same model
 *   as gemini-3.1-pro-preview, billed alike); its router, `gemini-3.5-flash-lite`, is recorded nowhere.
 *   Gemini 3.1 Pro Preview's rates are for prompts of at most 200K tokens.
 *
 * `cached_input` absent: no cached price was published with the model's rates, so cached tokens cost the
 * input rate (an upper bound: never a bill below the real one). `cache_write` absent: cache writes cost the
 * input rate (OpenAI and Google bill no write premium on implicit caching).
 */

/** USD per million tokens: input read fresh, output, input read from (`cached_input`) and written to the cache. */
export interface Price {
  input: number;
  output: number;
  cached_input?: number | undefined;
  cache_write?: number | undefined;
}

const opus45: Price = { input: 5, cache_write: 6.25, cached_input: 0.5, output: 25 };
const opus41: Price = { input: 15, cache_write: 18.75, cached_input: 1.5, output: 75 };
const sonnet4: Price = { input: 3, cache_write: 3.75, cached_input: 0.3, output: 15 };
const haiku45: Price = { input: 1, cache_write: 1.25, cached_input: 0.1, output: 5 };
const gemini31Pro: Price = { input: 2, output: 12 };

export const PRICES: Readonly<Record<string, Price>> = {
  // Anthropic
  'claude-opus-5': opus45,
  'claude-opus-4-8': opus45,
  'claude-opus-4-7': opus45,
  'claude-opus-4-6': opus45,
  'claude-opus-4-5': opus45,
  'claude-opus-4-1': opus41,
  'claude-opus-4': opus41,
  'claude-sonnet-4-6': sonnet4,
  'claude-sonnet-4-5': sonnet4,
  'claude-sonnet-4': sonnet4,
  'claude-haiku-4-5': haiku45,
  // OpenAI
  'gpt-6.1-sol': { input: 2, cached_input: 0.1, output: 10 },
  'gpt-5-codex': { input: 1.25, cached_input: 0.125, output: 10 },
  // Google
  'gemini-3.8-flash': { input: 0.75, cached_input: 0.075, output: 3.75 },
  'gemini-3.5-flash': { input: 1.5, output: 9 },
  'gemini-3.1-pro-preview': gemini31Pro,
  'gemini-3.1-pro-preview-customtools': gemini31Pro,
};
