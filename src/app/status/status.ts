/** What `baton status` and the dashboard show: the conversation's state from the bus, each agent's pane from tmux. */
import type { Archive, Liveness, Status } from '../../bus/bus.js';
import { openBus } from '../../bus/open.js';
import { hostOf, isLocal, type Config } from '../../config/config.js';
import { agentKey, conversationKey } from '../../core/budget.js';
import { rulesFor } from '../../core/conversation.js';
import type { State } from '../../core/state.js';
import { CatchUps, PersonRecords, settled } from '../../daemon/catch-up.js';
import { readDialogs } from '../../terminal/hooks/dialog-files.js';
import { readAgentStates } from '../../terminal/hooks/spool.js';
import { findPane, targetOf } from '../../terminal/pane.js';
import { readScreen, whyNotReady } from '../../terminal/readiness.js';
import type { Tmux } from '../../terminal/tmux.js';
import type { AgentStatus, StatusReport } from './report.js';
import { readRegistry, stateDir } from '../machine/registry.js';
import { skippedConversation } from '../machine/skipped.js';
import { notifyStatus } from '../notify.js';
import { runningConfig } from './running.js';
import { waitingOf } from './status-waiting.js';
import { conversationTmux } from '../tmux-server.js';

export type { StatusReport };
export { formatStatus } from './status-text.js';
/** For a caller that keeps a person's records between status reads (the dashboard). */
export { PersonRecords };

/** `t`: a long-lived Tmux (the dashboard's) over one tmux process per question; `people`: kept between calls. */
export async function collectStatus(
  config: Config,
  t: Tmux = conversationTmux(config),
  bus: Status & Liveness & Pick<Archive, 'record'> = openBus(config),
  people: PersonRecords = new PersonRecords(bus, config.order),
): Promise<StatusReport> {
  const state = await bus.readState();
  const catchUp = await new CatchUps(config, bus, people).counts(state?.message_counter ?? 0);
  const held = await bus.waitingCounts();
  const rejected = await bus.rejectedCount();
  const relaying = await bus.relaying();
  const hooked = readAgentStates(config.messageDir);
  const dialogs = readDialogs(config.messageDir);
  const agents: StatusReport['agents'] = Object.fromEntries(
    await Promise.all(
      config.order.map(async (name) => {
        const here = isLocal(config, name);
        const pane = here ? await localAgent(config, t, name, hooksOf(hooked, name)) : remoteAgent(config, name);
        return [name, { ...pane, catch_up: catchUp[name] ?? 0, dialog: (here && dialogs[name]) || null }] as const;
      }),
    ),
  );
  // A person's notes to all that some pane has not got yet (the daemons keep trying).
  const unsettled = (await people.all()).filter((r) => r.receiver === 'all' && !settled(r, config.order));
  const notes = Object.fromEntries(unsettled.map((r) => [r.id, config.order.filter((a) => !r.deliveries?.[a]?.at)]));
  const pending = await bus.approvalKeys();
  const daemon = await bus.daemon().then((d) => ({ running: d.running, pid: d.pid }));
  const skipped = skippedConversation(config);
  const registry = readRegistry(stateDir());
  const hosts = await hostsOf(bus);
  const waiting = waitingOf(config, { state, held, agents, daemon: daemon.running, hosts, pending });
  const started = state?.turn_started_at ?? null;
  // The turn rules this machine's daemon runs, which a config.json edited meanwhile may not be (running.ts).
  const running = runningConfig(config);
  const turns = running ? ({ ...config.turns, ...running.turns } as Config['turns']) : config.turns;
  return {
    config: config.file,
    message_dir: bus.where,
    policy: turns.policy,
    policy_in_file: turns.policy === config.turns.policy ? null : config.turns.policy,
    current_turn: state?.current_turn ?? null,
    message_counter: state?.message_counter ?? 0,
    last_message_id: state?.last_message_id ?? null,
    pending_reply_to: state?.pending_reply_to ?? null,
    held,
    rejected,
    relaying,
    daemon,
    skipped,
    registry_problem: registry.ok ? null : registry.problem,
    agents,
    max_turns: rulesFor(turns, state ?? {}).max_turns,
    turns_base: state?.turns_base ?? 0,
    tokens: { total: state?.tokens?.total ?? 0, by_agent: state?.tokens?.by_agent ?? {}, max: turns.max_tokens },
    cost: costOf(config, turns, state),
    turn_started_at: started,
    seconds_in_turn: turnSeconds(state),
    nudges: state?.nudges ?? 0,
    stalled: state?.stalled ?? false,
    finished: state?.finished ?? null,
    paused: state?.paused ?? null,
    blocked: state?.blocked ?? null,
    demo: Boolean(state?.demo),
    pending,
    waiting,
    notes,
    bus: { kind: config.bus.kind, conversation: config.bus.kind === 'postgres' ? config.bus.conversation : null },
    hosts,
    running_config: running,
    notify: notifyStatus(config),
  };
}

/** How long the holder has had the turn, or null when no turn clock runs (finished; paused: nobody is reminded). */
export function turnSeconds(
  s: { turn_started_at?: string | undefined; finished?: unknown; paused?: unknown } | null,
  now = Date.now(),
): number | null {
  const at = s?.turn_started_at ? Date.parse(s.turn_started_at) : Number.NaN;
  if (!s || s.finished || s.paused || Number.isNaN(at)) return null;
  return Math.max(0, Math.round((now - at) / 1000));
}

/** What the turns cost, and the budgets in force (a `resume --budget` over the config's). */
function costOf(config: Config, turns: Config['turns'], state: State | null): StatusReport['cost'] {
  const raised = state?.raised ?? {};
  return {
    usd: state?.cost?.usd ?? 0,
    by_agent: state?.cost?.by_agent ?? {},
    unpriced: state?.cost?.unpriced ?? [],
    max_usd: raised[conversationKey] ?? turns.max_cost_usd,
    agents_max: Object.fromEntries(
      config.order.map((a) => [a, raised[agentKey(a)] ?? config.agents[a]!.maxCostUsd]).filter(([, n]) => n),
    ),
  };
}

/** What an agent's hooks last said (the CLIs with hooks baton reads), or null. */
function hooksOf(hooked: ReturnType<typeof readAgentStates>, name: string): AgentStatus['hooks'] {
  const h = hooked[name];
  return h ? { state: h.state, since: h.since, ...('detail' in h && h.detail ? { detail: h.detail } : {}) } : null;
}

/** What an agent's pane and hooks say (its catch-up is the archive's, its dialog the daemon's). */
type PaneStatus = Omit<AgentStatus, 'catch_up' | 'dialog'>;

/** An agent of this machine: its pane and screen, from tmux. */
async function localAgent(config: Config, t: Tmux, name: string, hooks: AgentStatus['hooks']): Promise<PaneStatus> {
  const agent = config.agents[name]!;
  const pane = await findPane(t, agent);
  const screen = pane && !pane.dead && !pane.demo ? await readScreen(t, agent, pane) : null;
  // The demo pane has its own gate: its screen is not read.
  const problem = await whyNotReady(t, agent, pane, pane?.demo ? undefined : screen);
  return {
    alive: !!pane && !pane.dead,
    target: targetOf(agent),
    pane: pane?.id ?? null,
    dead: !!pane?.dead,
    command: pane?.command ?? null,
    last_activity: pane?.activity ? new Date(pane.activity * 1000).toISOString() : null,
    problem: problem?.reason ?? null,
    kind: agent.kind,
    demo: Boolean(pane?.demo),
    host: hostOf(config, name),
    hooks,
    screen: screen && {
      state: screen.state,
      ...('busy' in screen ? { busy: screen.busy } : {}),
      ...('detail' in screen ? { detail: screen.detail } : {}),
    },
  };
}

/** Another machine's agent: its pane is on that machine's tmux (status there shows it). */
function remoteAgent(config: Config, name: string): PaneStatus {
  const [agent, host] = [config.agents[name]!, hostOf(config, name)];
  const pane = { alive: false, target: targetOf(agent), pane: null, dead: false, command: null, last_activity: null };
  return { ...pane, problem: `runs on ${host}`, kind: agent.kind, demo: false, host, hooks: null, screen: null };
}

/** Every machine of the conversation: is its daemon alive, and since when. */
async function hostsOf(bus: Liveness): Promise<StatusReport['hosts']> {
  return Object.fromEntries(
    (await bus.hosts()).map(({ host, alive, holder, last_heartbeat, agents }) => {
      const since = alive ? (holder?.started_at ?? null) : last_heartbeat;
      return [host, { alive, pid: holder?.pid ?? null, last_heartbeat, since, agents }];
    }),
  );
}
