/**
 * A config.json edited while its daemon runs: which differences apply live (`turns.*` but the policy, `delivery.*`,
 * `agents.<name>.reply`) and which need a restart (pure). On the PostgreSQL bus the turn rules are shared by every
 * machine (fingerprint.ts): a restart there too. docs/decisions/0009-state-a-person-can-break.md.
 */
import type { Config } from './config.js';
import { differences } from './fingerprint.js';

export interface ReloadPlan {
  /** Key paths the daemon applies now (`turns.max_turns`, `agents.claude1.reply`). */
  live: string[];
  /** Key paths that differ but apply only after a restart (`agents.c3`, `bus.kind`). */
  restart: string[];
}

/** The config as its keys compare: resolved values, each under the key a person edits. */
function keyed(c: Config): Record<string, unknown> {
  return {
    message_dir: c.messageDir,
    agents: c.agents,
    'agent order': c.order,
    directions: Object.fromEntries(c.directions.map((d) => [d.name, [d.from, d.to, d.dir]])),
    first_turn: c.firstTurn,
    turns: c.turns,
    inbox: c.inbox,
    delivery: c.delivery,
    bus: c.bus,
    notify: c.notify,
    pricing: c.pricing,
  };
}

/** On the PostgreSQL bus: an agent's budget and the prices are its own machine's to apply (it counts its turns). */
const LIVE_SHARED = [/^delivery\./, /^agents\.[^.]+\.(?:reply|maxCostUsd)$/, /^pricing(?:\.|$)/];
const LIVE = [/^turns\.(?!policy$)/, ...LIVE_SHARED];

export function reloadPlan(running: Config, next: Config): ReloadPlan {
  const rules = running.bus.kind === 'postgres' ? LIVE_SHARED : LIVE;
  const plan: ReloadPlan = { live: [], restart: [] };
  // An agent added or removed differs as a whole (`agents.c3`), which no live rule matches.
  for (const path of differences(keyed(running), keyed(next)))
    (rules.some((r) => r.test(path)) ? plan.live : plan.restart).push(path);
  return plan;
}

/** Take the live part of `next` into `running`, in place: the daemon's parts read these at each use. */
export function applyLive(running: Config, next: Config): void {
  running.turns = next.turns;
  running.delivery = next.delivery;
  running.pricing = next.pricing;
  for (const name of running.order) {
    const agent = next.agents[name];
    if (!agent) continue;
    running.agents[name]!.reply = agent.reply;
    running.agents[name]!.maxCostUsd = agent.maxCostUsd;
  }
}

/** The running config's part a person compares with the file (`status`): no secrets, no paths. */
export function runningSettings(c: Config): Pick<Config, 'turns' | 'delivery'> & { replies: Record<string, string> } {
  return {
    turns: c.turns,
    delivery: c.delivery,
    replies: Object.fromEntries(c.order.map((n) => [n, c.agents[n]!.reply])),
  };
}
