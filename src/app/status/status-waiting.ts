/** `waiting` in `baton status`: why each direction's messages wait, by the daemon's rules (core/waiting.ts). */
import { hostOf, isLocal, type Config } from '../../config/config.js';
import type { State } from '../../core/state.js';
import { initialState } from '../../core/turns.js';
import { waitText, whyWaiting } from '../../core/waiting.js';
import type { StatusReport, WaitingStatus } from './report.js';

export interface WaitingInputs {
  state: State | null;
  held: Record<string, number>;
  agents: StatusReport['agents'];
  daemon: boolean;
  hosts: StatusReport['hosts'];
  /** Approvals waiting, as `<direction>/<name>`. */
  pending: readonly string[];
}

export function waitingOf(config: Config, o: WaitingInputs): Record<string, WaitingStatus> {
  const state = o.state ?? initialState(config.firstTurn);
  const rules = { policy: config.turns.policy, agents: config.order };
  // Moderated mode: one approval per sender at a time; its next messages wait behind it.
  const awaiting = new Set(
    o.pending.map((k) => config.directions.find((d) => k.startsWith(`${d.name}/`))?.from).filter(Boolean),
  );
  const out: Record<string, WaitingStatus> = {};
  for (const d of config.directions) {
    const count = o.held[d.name] ?? 0;
    if (!count) continue;
    const host = hostOf(config, d.to);
    const why = whyWaiting(state, d, rules, {
      daemon: o.daemon,
      remote: isLocal(config, d.to) ? null : { host, alive: o.hosts[host]?.alive ?? false },
      problem: o.agents[d.to]?.problem ?? null,
      approval: config.turns.moderated && awaiting.has(d.from),
    });
    out[d.name] = { count, ...why, text: waitText(why, d) };
  }
  return out;
}
