/**
 * Cost budgets (docs/protocol.md §12): what the agents spent in USD, summed per agent and in all in the
 * state, and when a budget is reached — `turns.max_cost_usd` for the conversation, `agents.NAME.max_cost_usd`
 * for one agent. Reaching one pauses the conversation (never ends it: a person decides), with `paused:
 * {reason: "budget", budget, spent_usd, max_usd}`.
 *
 * `baton resume` goes on without raising anything: the budget stays spent, so the next turn that adds cost
 * pauses it again (one more turn per resume, never a run past the limit nobody agreed to). `baton resume
 * --budget USD` raises the budget that paused it to USD for this conversation (kept in the state, `raised`,
 * over the config's), and a config.json with a higher limit does the same for every conversation it runs.
 */
import type { TurnCost } from './pricing.js';
import { round } from './pricing.js';

/** What the agents spent, in the state. */
export interface Spent {
  usd: number;
  by_agent: Record<string, number>;
  /** Models whose tokens were counted with no price (their cost is not in `usd`). */
  unpriced?: string[] | undefined;
}

/** The budgets in force: 0 is none. `raised`: what `baton resume --budget` set, by key path, over the config. */
export interface Budgets {
  conversation: number;
  agents: Record<string, number>;
  raised?: Record<string, number> | undefined;
}

/** A budget reached: which (its key path), whose (an agent's budget), how much spent of how much. */
export interface Reached {
  budget: string;
  agent?: string;
  spent_usd: number;
  max_usd: number;
}

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
export function dollars(x: number): string {
  if (x === 0) return '$0';
  return x >= 0.01 ? `$${x.toFixed(2)}` : `$${x.toPrecision(2)}`;
}
