/**
 * What `baton status` and the dashboard show: the conversation's state from the bus, and each agent's
 * pane from tmux. Reads only; a long-lived Tmux (the dashboard's control client) can be passed in
 * instead of one tmux process per question.
 */
import type { BusReader } from '../bus/bus.js';
import { openBus } from '../bus/open.js';
import { hostOf, isLocal, type Config } from '../config/config.js';
import { rulesFor } from '../core/conversation.js';
import { readAgentStates } from '../terminal/hooks/spool.js';
import { findPane, targetOf } from '../terminal/pane.js';
import { readScreen, whyNotReady } from '../terminal/readiness.js';
import { Tmux } from '../terminal/tmux.js';
import type { AgentStatus, StatusReport } from './report.js';

export type { AgentStatus, StatusReport };

/** `t`: a long-lived Tmux (the dashboard's control client) instead of one tmux process per question. */
export async function collectStatus(
  config: Config,
  t: Tmux = new Tmux(),
  bus: BusReader = openBus(config),
): Promise<StatusReport> {
  const state = await bus.readState();
  const held = await bus.waitingCounts();
  const rejected = await bus.rejectedCount();
  const agents: StatusReport['agents'] = {};
  const hooked = readAgentStates(config.messageDir);
  const hooksOf = (name: string): AgentStatus['hooks'] => {
    const h = hooked[name];
    return h ? { state: h.state, since: h.since, ...('detail' in h && h.detail ? { detail: h.detail } : {}) } : null;
  };
  await Promise.all(
    config.order.map(async (name) => {
      const target = targetOf(config.agents[name]!);
      const host = hostOf(config, name);
      if (!isLocal(config, name)) {
        // Another machine's agent: its pane is on that machine's tmux (status there shows it).
        agents[name] = {
          alive: false,
          target,
          pane: null,
          dead: false,
          command: null,
          last_activity: null,
          problem: `runs on ${host}`,
          kind: config.agents[name]!.kind,
          demo: false,
          host,
          hooks: null,
          screen: null,
        };
        return;
      }
      const pane = await findPane(t, config.agents[name]!);
      const screen = pane && !pane.dead && !pane.demo ? await readScreen(t, config.agents[name]!, pane) : null;
      agents[name] = {
        alive: !!pane && !pane.dead,
        target,
        pane: pane?.id ?? null,
        dead: !!pane?.dead,
        command: pane?.command ?? null,
        last_activity: pane?.activity ? new Date(pane.activity * 1000).toISOString() : null,
        problem: (await whyNotReady(t, config.agents[name]!, pane, pane?.demo ? undefined : screen))?.reason ?? null, // the demo pane: its own gate
        kind: config.agents[name]!.kind,
        demo: Boolean(pane?.demo),
        host,
        hooks: hooksOf(name),
        screen: screen && {
          state: screen.state,
          ...('busy' in screen ? { busy: screen.busy } : {}),
          ...('detail' in screen ? { detail: screen.detail } : {}),
        },
      };
    }),
  );
  const pending = await bus.approvalKeys();
  const waiting: Record<string, string> = {};
  for (const d of config.directions) {
    const problem = agents[d.to]?.problem;
    if (held[d.name] && problem) waiting[d.name] = `${d.to}: ${problem}`;
  }
  const started = state?.turn_started_at ?? null;
  return {
    config: config.file,
    message_dir: bus.where,
    policy: config.turns.policy,
    current_turn: state?.current_turn ?? null,
    message_counter: state?.message_counter ?? 0,
    last_message_id: state?.last_message_id ?? null,
    pending_reply_to: state?.pending_reply_to ?? null,
    held,
    rejected,
    daemon: await bus.daemon().then((d) => ({ running: d.running, pid: d.pid })),
    agents: Object.fromEntries(config.order.map((n) => [n, agents[n]!])),
    max_turns: rulesFor(config.turns, state ?? {}).max_turns,
    tokens: { total: state?.tokens?.total ?? 0, by_agent: state?.tokens?.by_agent ?? {}, max: config.turns.max_tokens },
    turn_started_at: started,
    seconds_in_turn: started ? Math.max(0, Math.round((Date.now() - Date.parse(started)) / 1000)) : null,
    nudges: state?.nudges ?? 0,
    stalled: state?.stalled ?? false,
    finished: state?.finished ?? null,
    paused: state?.paused ?? null,
    demo: Boolean(state?.demo),
    pending,
    waiting,
    bus: { kind: config.bus.kind, conversation: config.bus.kind === 'postgres' ? config.bus.conversation : null },
    hosts: Object.fromEntries(
      (await bus.hosts()).map((h) => [
        h.host,
        {
          alive: h.alive,
          pid: h.holder?.pid ?? null,
          last_heartbeat: h.last_heartbeat,
          since: h.alive ? (h.holder?.started_at ?? null) : h.last_heartbeat,
          agents: h.agents,
        },
      ]),
    ),
  };
}

const ago = (iso: string | null) => {
  if (!iso) return '-';
  const s = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  return s < 120 ? `${s} s ago` : s < 7200 ? `${Math.round(s / 60)} min ago` : `${Math.round(s / 3600)} h ago`;
};

/** A screen in a few words: `ready`, `ready, busy`, `holding text`, `dialog (…)`, `not recognised`. */
function screenWords(x: NonNullable<AgentStatus['screen']>): string {
  const busy = x.busy ? ', busy' : '';
  if (x.state === 'ready') return `ready${busy}`;
  if (x.state === 'holding') return `holding text${busy}`;
  return x.state === 'dialog' ? `dialog (${x.detail ?? ''})` : 'not recognised';
}

export function formatStatus(s: StatusReport): string {
  const lines = [
    `config        ${s.config ?? `none found — showing the built-in default (${Object.keys(s.agents).join(', ')}); "baton init" writes a config.json`}`,
    `message_dir   ${s.message_dir}`,
    `daemon        ${s.daemon.running ? `running (pid ${s.daemon.pid})` : 'not running'}`,
    `policy        ${s.policy}`,
    `conversation  ${s.finished ? `finished (${s.finished.reason}${s.finished.note ? `: ${s.finished.note}` : ''}, ${s.finished.at}); "baton resume" continues it` : s.paused ? `paused since ${s.paused.at}; "baton resume" continues it` : s.stalled ? `stalled: ${s.current_turn} stayed silent after ${s.nudges} reminders` : s.daemon.running ? 'running' : 'not running (no daemon: "baton up" starts it)'}${s.demo ? ' — a demo' : ''}`,
    `turn          ${s.current_turn ?? '(no state yet)'}${s.seconds_in_turn !== null ? ` for ${s.seconds_in_turn} s` : ''}${s.nudges ? `, ${s.nudges} reminder(s) sent` : ''}`,
    ...(s.tokens.total || s.tokens.max
      ? [
          `tokens        ${s.tokens.total}${s.tokens.max ? ` of max ${s.tokens.max}` : ''} (${
            Object.entries(s.tokens.by_agent)
              .map(([a, n]) => `${a} ${n}`)
              .join(', ') || 'none counted yet'
          })`,
        ]
      : []),
    `messages      ${s.message_counter}${s.max_turns ? ` of max ${s.max_turns}` : ''} (last ${s.last_message_id ?? '-'}, awaiting a reply to ${s.pending_reply_to ?? '-'})`,
    `waiting       ${
      Object.entries(s.held)
        .map(([d, n]) => `${d}: ${n}${s.waiting[d] ? ` (${s.waiting[d]})` : ''}`)
        .join(', ') || '-'
    }`,
    ...(s.pending.length ? [`pending       ${s.pending.join(', ')} (baton approve / baton reject)`] : []),
    `rejected      ${s.rejected}`,
    ...(s.bus.kind === 'postgres'
      ? [
          'hosts',
          ...Object.entries(s.hosts).map(
            ([h, x]) =>
              `  ${h.padEnd(12)} ${x.alive ? `alive (pid ${x.pid})` : 'no daemon'}${x.since ? ` since ${x.since} (${ago(x.since)})` : ''}${x.alive && x.last_heartbeat ? `, heartbeat ${ago(x.last_heartbeat)}` : ''}  agents: ${x.agents.join(', ') || '-'}`,
          ),
        ]
      : []),
    'agents',
    ...Object.entries(s.agents).map(
      ([n, a]) =>
        `  ${n.padEnd(12)} ${a.problem?.startsWith('runs on ') && !a.pane ? a.problem : a.alive ? 'alive' : a.dead ? 'dead ' : 'missing'}  ${a.demo ? `demo agent (for ${a.kind})` : a.kind}  ${a.target}${a.pane ? ` (${a.pane}, ${a.command}, active ${ago(a.last_activity)})` : ''}${a.screen ? `  screen: ${screenWords(a.screen)}` : ''}${a.hooks ? `  hooks: ${a.hooks.state === 'permission' ? 'waiting for a permission' : a.hooks.state} since ${ago(a.hooks.since)}${a.hooks.detail ? ` (${a.hooks.detail})` : ''}` : ''}${a.problem && a.pane ? `  ! ${a.problem}` : ''}`,
    ),
  ];
  return `${lines.join('\n')}\n`;
}
