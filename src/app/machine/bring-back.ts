/**
 * `baton service install --agents`: after a reboot the service's daemon brings back each running conversation's
 * agents — what `baton up` in its folder would start, each client resuming its session (up/agent-start.ts), the
 * turn holder told what it owes (daemon/restarted.ts). A finished conversation or a demo stays down; without
 * `--agents` nothing is started, and `baton ls` says which conversations wait for `baton up`.
 */
import { openBus } from '../../bus/open.js';
import { isLocal, type Config } from '../../config/config.js';
import type { Logger } from '../../lib/log.js';
import type { Tmux } from '../../terminal/tmux.js';
import { startAgents } from '../up/agent-start.js';
import { installHooks } from '../up/hooks.js';
import { writeInstructions } from '../up/instructions.js';
import { planCommands } from '../up/up.js';

/** Start the conversation's agents that have no live pane. Null when done, else why not. */
export async function bringBack(config: Config, t: Tmux, log: Logger): Promise<string | null> {
  const bus = openBus(config);
  const state = await bus.readState().catch(() => null);
  if (!state) return 'it has no conversation yet';
  if (state.finished) return `it finished (${state.finished.reason})`;
  if (state.demo) return 'it is a demo ("baton up --demo" starts it)';
  const plan = planCommands(config, false);
  if (!plan.ok) return 'its agents\' commands are not all installed ("baton up" there says which)';
  if (!plan.agents.length) return null;
  await writeInstructions(config);
  const launches = await installHooks(
    config,
    plan.agents.map((p) => p.agent),
  );
  const started = { config, plan: plan.agents, launches, state, demo: false, freshAgents: false, topic: undefined };
  const ok = await startAgents(t, { ...started, blank: {} });
  if (!ok) return "an agent's session could not start";
  const here = config.order.filter((a) => isLocal(config, a));
  log.info(`brought back its agents (${here.join(', ')})`);
  return null;
}
