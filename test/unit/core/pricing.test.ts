/**
 * core/pricing.ts and core/budget.ts: a turn's cost in USD from its usage by model and a price table (the
 * shipped one under config.json's `pricing`), a model with no price named instead of guessed, and when a
 * cost budget is reached.
 */
import { describe, expect, it } from 'vitest';
import { addCost, agentKey, conversationKey, dollars, reached } from '../../../src/core/budget.js';
import { PRICES } from '../../../src/core/prices.js';
import { priceOf, priceTable, turnCost, UNNAMED, usd } from '../../../src/core/pricing.js';

const usage = (input: number, output: number, cache_read = 0, cache_creation = 0) => ({
  input,
  output,
  cache_read,
  cache_creation,
});

describe('a price', () => {
  it('is found under the name the client wrote, or without a context tag, a provider or a date — never by prefix', () => {
    const t = priceTable();
    expect(priceOf('claude-opus-4-8', t)).toBe(PRICES['claude-opus-4-8']);
    expect(priceOf('claude-opus-4-8[1m]', t)).toBe(PRICES['claude-opus-4-8']);
    expect(priceOf('claude-sonnet-4-5-20250929', t)).toBe(PRICES['claude-sonnet-4-5']);
    expect(priceOf('openai/gpt-6.1-sol', t)).toBe(PRICES['gpt-6.1-sol']);
    expect(priceOf('gpt-6.1-sol-2026-09-29', t)).toBe(PRICES['gpt-6.1-sol']);
    expect(priceOf('gpt-5-codex-mini', t)).toBeNull();
    expect(priceOf('gpt-5.1-codex', t)).toBeNull();
  });

  it("the shipped table holds each client's default model", () => {
    for (const m of ['claude-opus-4-8', 'gpt-6.1-sol', 'gemini-3.8-flash', 'gemini-3.1-pro-preview-customtools'])
      expect(priceOf(m, priceTable()), m).not.toBeNull();
  });

  it("config.json's pricing replaces a row or adds one", () => {
    const t = priceTable({ 'claude-opus-4-8': { input: 1, output: 2 }, 'my-model': { input: 3, output: 4 } });
    expect(priceOf('claude-opus-4-8', t)).toEqual({ input: 1, output: 2 });
    expect(priceOf('my-model', t)).toEqual({ input: 3, output: 4 });
    expect(priceOf('gpt-6.1-sol', t)).toBe(PRICES['gpt-6.1-sol']);
  });

  it('costs each kind of token at its rate; cached and written ones at the input rate where none is given', () => {
    const opus = PRICES['claude-opus-4-8']!;
    expect(usd(usage(1_000_000, 1_000_000, 1_000_000, 1_000_000), opus)).toBeCloseTo(5 + 25 + 0.5 + 6.25, 9);
    expect(usd(usage(0, 0, 1_000_000, 1_000_000), { input: 2, output: 12 })).toBe(4);
  });
});

describe("a turn's cost", () => {
  it('sums its models; one with no price is named, not guessed, and the rest still count', () => {
    const t = priceTable();
    const parts = [
      { model: 'gemini-3.8-flash', usage: usage(1000, 100, 2000) },
      { model: 'mystery-1', usage: usage(5, 5) },
    ];
    const c = turnCost(parts, t);
    expect(c.usd).toBeCloseTo((1000 * 0.75 + 100 * 3.75 + 2000 * 0.075) / 1e6, 12);
    expect(c).toMatchObject({ models: ['gemini-3.8-flash', 'mystery-1'], unpriced: ['mystery-1'] });
  });

  it('with no price at all it has no USD (tokens only); a model the client did not name is said as such', () => {
    expect(turnCost([{ model: null, usage: usage(1, 1) }], priceTable())).toEqual({
      usd: null,
      models: [UNNAMED],
      unpriced: [UNNAMED],
    });
    // A part that used nothing needs no price.
    expect(turnCost([{ model: 'x', usage: usage(0, 0) }], priceTable()).unpriced).toEqual([]);
  });
});

describe('cost budgets', () => {
  const priced = { usd: 0.4, models: ['m'], unpriced: [] };

  it('spent sums add per agent and in all, and keep the models with no price', () => {
    let s = addCost(undefined, 'a', priced);
    s = addCost(s, 'b', { usd: null, models: ['x'], unpriced: ['x'] });
    s = addCost(s, 'a', priced);
    expect(s).toEqual({ usd: 0.8, by_agent: { a: 0.8, b: 0 }, unpriced: ['x'] });
  });

  it("an agent's own budget is said first (whose turns cost too much), then the conversation's", () => {
    const b = { conversation: 1, agents: { a: 0.5, b: 0 } };
    expect(reached({ usd: 0.6, by_agent: { a: 0.5, b: 0.1 } }, 'a', b)).toEqual({
      budget: agentKey('a'),
      agent: 'a',
      spent_usd: 0.5,
      max_usd: 0.5,
    });
    expect(reached({ usd: 0.6, by_agent: { a: 0.5, b: 0.1 } }, 'b', b)).toBeNull();
    expect(reached({ usd: 1, by_agent: { a: 0.4, b: 0.6 } }, 'b', b)).toEqual({
      budget: conversationKey,
      spent_usd: 1,
      max_usd: 1,
    });
  });

  it('0 is no budget; a budget raised by resume --budget stands over the config', () => {
    const b = { conversation: 0, agents: {} };
    expect(reached({ usd: 1e6, by_agent: { a: 1e6 } }, 'a', b)).toBeNull();
    const raised = { conversation: 1, agents: {}, raised: { [conversationKey]: 5 } };
    expect(reached({ usd: 4, by_agent: { a: 4 } }, 'a', raised)).toBeNull();
    expect(reached({ usd: 5, by_agent: { a: 5 } }, 'a', raised)?.max_usd).toBe(5);
  });

  it('dollars read as a person reads them', () => {
    expect([dollars(0), dollars(1.234), dollars(0.0042)]).toEqual(['$0', '$1.23', '$0.0042']);
  });
});
