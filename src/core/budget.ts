/**
 * Cost budgets (docs/protocol.md §12): USD spent per agent and in all, and when `turns.max_cost_usd` or
 * `agents.NAME.max_cost_usd` is reached — which pauses the conversation (a person decides), with `paused:
 * {reason: "budget", budget, spent_usd, max_usd}`. `baton resume` raises nothing: the next turn that adds
 * cost pauses again (never a run past a limit nobody agreed to); `--budget USD` raises the budget that paused
 * it for this conversation (the state's `raised`, over the config's).
 */
import type { TurnCost } from './pricing.js';
import { round } from './pricing.js';

/** What the agents spent, in the state; `unpriced`: models counted with no price (not in `usd`). */
export type Spent = { usd: number; by_agent: Record<string, number>; unpriced?: string[] | undefined };

/** The budgets in force: 0 is none. `raised`: what `baton resume --budget` set, by key path, over the config. */
export interface Budgets {
  conversation: number;
  agents: Record<string, number>;
  raised?: Record<string, number> | undefined;
}

/** A budget reached: which (its key path), whose (an agent's budget), how much spent of how much. */
export type Reached = { budget: string; agent?: string; spent_usd: number; max_usd: number };

export const conversationKey = 'turns.max_cost_usd';
export const agentKey = (agent: string): string => `agents.${agent}.max_cost_usd`;

/** The spent totals with a turn of `agent` added. */
export function addCost(spent: Spent | undefined, agent: string, cost: TurnCost): Spent {
  const by = { ...(spent?.by_agent ?? {}) };
  const usd = cost.usd ?? 0;
  by[agent] = round((by[agent] ?? 0) + usd);
  const unpriced = [...new Set([...(spent?.unpriced ?? []), ...cost.unpriced])];
  return { usd: round((spent?.usd ?? 0) + usd), by_agent: by, ...(unpriced.length ? { unpriced } : {}) };
}

/** A budget's limit now: the one `--budget` raised it to, else the config's (0: none). */
const limitOf = (b: Budgets, key: string, configured: number): number => b.raised?.[key] ?? configured;

/**
 * After a turn of `agent` added cost: the budget it reached, or null. Its own budget first (it says whose
 * turns cost too much), then the conversation's. Only a turn that cost something asks: a resume never
 * re-pauses on the same spent sum by itself.
 */
export function reached(spent: Spent, agent: string, b: Budgets): Reached | null {
  const own = limitOf(b, agentKey(agent), b.agents[agent] ?? 0);
  const mine = spent.by_agent[agent] ?? 0;
  if (own > 0 && mine >= own) return { budget: agentKey(agent), agent, spent_usd: mine, max_usd: own };
  const all = limitOf(b, conversationKey, b.conversation);
  if (all > 0 && spent.usd >= all) return { budget: conversationKey, spent_usd: spent.usd, max_usd: all };
  return null;
}

/** USD as a person reads it: cents, or more digits below a cent. */
export const dollars = (x: number): string =>
  x === 0 ? '$0' : x >= 0.01 ? `$${x.toFixed(2)}` : `$${x.toPrecision(2)}`;
