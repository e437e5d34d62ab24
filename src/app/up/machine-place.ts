/**
 * This machine's place in a conversation across machines (docs/protocol.md §10), checked before `baton up`
 * starts anything: a name (BATON_HOST, else the hostname) no agent's `host` matches runs nothing, and a name a
 * live daemon elsewhere holds would start a second copy of its agents, panes no message reaches.
 */
import { hostname } from 'node:os';
import type { Holder, Liveness } from '../../bus/bus.js';
import { isLocal, type Config } from '../../config/config.js';

/** Why `up` must not go on here: exit 2 (the config names no agent for this machine) or 3 (the name is held). */
export type MachineProblem = { code: 2 | 3; message: string };

/** How a machine got its name, for a person who must change it. */
const named = (config: Config): string =>
  `this machine is "${config.host}" (${process.env.BATON_HOST ? 'BATON_HOST' : 'its hostname; BATON_HOST is not set'})`;

/** Each machine the config names and its agents: `alpha (claude1), beta (claude2, claude3)`. */
function machinesOf(config: Config): string {
  const by = new Map<string, string[]>();
  for (const name of config.order) {
    const host = config.agents[name]!.host;
    by.set(host, [...(by.get(host) ?? []), name]);
  }
  return [...by].map(([host, agents]) => `${host} (${agents.join(', ')})`).join(', ');
}

/** The machine runs none of the conversation's agents: nothing for its `up` to start. */
export function noAgentsHere(config: Config): MachineProblem | null {
  if (config.bus.kind !== 'postgres' || config.order.some((a) => isLocal(config, a))) return null;
  return {
    code: 2,
    message:
      `${named(config)} and runs none of this conversation's agents — they run on ${machinesOf(config)}; ` +
      'set BATON_HOST to the machine this one is (agents.<name>.host in config.json names them)',
  };
}

/** The daemon this project's `up` started before (left alone): on this host, for this message folder. */
const ours = (config: Config, holder: Holder | null): boolean =>
  holder !== null && holder.host === hostname() && (holder.dir === undefined || holder.dir === config.messageDir);

/** Its name is held by a live daemon not this project's: as the database proves it (`leaseHolder`), not a pid. */
export async function nameHeld(config: Config, bus: Liveness): Promise<MachineProblem | null> {
  if (config.bus.kind !== 'postgres') return null;
  const d = await bus.daemon();
  if (!d.running || ours(config, d.holder)) return null;
  const h = await bus.leaseHolder();
  if (h.kind !== 'alive') return null; // gone or stale: this machine's daemon takes the lease over
  const who = h.holder
    ? `a live daemon (pid ${h.holder.pid} on ${h.holder.host}, since ${h.holder.started_at})`
    : 'a live daemon';
  return {
    code: 3,
    message:
      `machine name "${config.host}" of conversation "${config.bus.conversation}" is held by ${who}; ` +
      `${named(config)}: give this machine its own name (BATON_HOST), or stop that daemon first`,
  };
}
