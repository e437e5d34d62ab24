/**
 * What a turn cost in USD: its usage by model priced from baton's table (prices.ts) with config.json's
 * `pricing` over it. A model the table lacks has no price: its tokens still count, and it is named, so
 * `status` says "no price for model X" rather than a cost that leaves it out silently. A model is looked up as
 * written, then without a bracketed context tag (`claude-opus-4-8[1m]`), a provider prefix
 * (`openai/gpt-6.1-sol`) or a date (`-20250929`, `-2026-09-29`); never by prefix (`gpt-5.1-codex-mini`).
 */
import { type Price, PRICES } from './prices.js';
import { type ModelUsage, totalOf, type Usage } from './tokens.js';

export type { Price };

export type PriceTable = Readonly<Record<string, Price>>;

/** The table in use: baton's, with the config's models replacing or adding to it. */
export const priceTable = (overrides: PriceTable = {}): PriceTable => ({ ...PRICES, ...overrides });

/** The names a model may be listed under, most exact first. */
function candidates(model: string): string[] {
  const out = [model];
  const add = (m: string) => {
    if (m && !out.includes(m)) out.push(m);
  };
  for (const m of [...out]) add(m.replace(/\[[^\]]*\]$/, ''));
  for (const m of [...out]) add(m.replace(/^[a-z0-9-]+\//i, ''));
  for (const m of [...out]) add(m.replace(/-(?:\d{8}|\d{4}-\d{2}-\d{2})$/, ''));
  return out;
}

/** The model's price, or null when the table has none. */
export function priceOf(model: string, table: PriceTable): Price | null {
  for (const m of candidates(model)) if (Object.hasOwn(table, m)) return table[m]!;
  return null;
}

/** What `usage` costs at `price`, in USD. */
export function usd(usage: Usage, price: Price): number {
  const cost =
    usage.input * price.input +
    usage.output * price.output +
    usage.cache_read * (price.cached_input ?? price.input) +
    usage.cache_creation * (price.cache_write ?? price.input);
  return cost / 1_000_000;
}

/** A turn's cost: `usd` null when no part had a price; `unpriced` the models that had none. */
export interface TurnCost {
  usd: number | null;
  /** The models the turn used (null: one the client did not name). */
  models: string[];
  unpriced: string[];
}

/** The name a model without a name is shown under. */
export const UNNAMED = '(unnamed)';

export function turnCost(parts: readonly ModelUsage[], table: PriceTable): TurnCost {
  let total: number | null = null;
  const models: string[] = [];
  const unpriced: string[] = [];
  for (const p of parts) {
    const name = p.model ?? UNNAMED;
    if (!models.includes(name)) models.push(name);
    const price = p.model === null ? null : priceOf(p.model, table);
    if (!price) {
      // A part that used nothing needs no price.
      if (totalOf(p.usage) > 0 && !unpriced.includes(name)) unpriced.push(name);
      continue;
    }
    total = (total ?? 0) + usd(p.usage, price);
  }
  return { usd: total === null ? null : round(total), models, unpriced };
}

/** Dollars kept to a millionth of a cent: sums of many turns stay exact enough, and JSON stays short. */
export const round = (x: number): number => Math.round(x * 1e8) / 1e8;

/**
 * Two turns one message opened, as one: the turn that message began and, after its agent was started again,
 * the turn a reminder of it began (core/restart.ts). Kept apart, the record said only what the last one cost.
 */
export function addTurnCost(a: TurnCost, b: TurnCost): TurnCost {
  const usd = a.usd === null && b.usd === null ? null : round((a.usd ?? 0) + (b.usd ?? 0));
  return {
    usd,
    models: [...new Set([...a.models, ...b.models])],
    unpriced: [...new Set([...a.unpriced, ...b.unpriced])],
  };
}
