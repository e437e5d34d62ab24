/**
 * What every machine of a PostgreSQL conversation must agree on (docs/protocol.md §10): the agents in order with
 * their machine and kind, the directions, who speaks first, the turn rules, a message's size. Each daemon decides
 * with its own copy, so copies that differ route a message into the wrong pane (a copy lacking an agent's `host`
 * typed into an unrelated local session of that name) or end it on one machine only. What only the machine
 * itself uses (commands, folders, sessions, typing delays, its own agents' reply mode) is left out.
 */
import type { Config } from './config.js';

export type Fingerprint = Record<string, unknown>;

/** The part of `config` every machine of its conversation must share. */
export function fingerprintOf(config: Config): Fingerprint {
  return {
    order: config.order,
    agents: Object.fromEntries(
      config.order.map((n) => [n, { host: config.agents[n]!.host, kind: config.agents[n]!.kind }]),
    ),
    directions: Object.fromEntries(config.directions.map((d) => [d.name, [d.from, d.to]])),
    first_turn: config.firstTurn,
    turns: config.turns,
    inbox: { max_bytes: config.inbox.max_bytes },
  };
}

/** The key paths (`agents.b.host`, `turns.policy`) where two fingerprints differ, in order. */
export function differences(a: unknown, b: unknown, path = ''): string[] {
  const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (isMap(a) && isMap(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return keys.flatMap((k) => differences(a[k], b[k], path ? `${path}.${k}` : k));
  }
  return JSON.stringify(a) === JSON.stringify(b) ? [] : [path || '(all)'];
}
