/**
 * `baton up`: start a conversation — each agent's tmux session and the daemon's — and say what it continues.
 * Demo and real agents never share a conversation or a session (mixed, a real agent owed a reply to a demo
 * message it never saw): real agents after a demo start a new one (the demo's kept aside); the demo refuses.
 */
import { isAbsolute, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { LeaseHeldError, type Admin, type Archive, type Liveness, type Status } from '../../bus/bus.js';
import { openBus } from '../../bus/open.js';
import { isLocal, type Config } from '../../config/config.js';
import type { Reply } from '../../core/requests.js';
import type { State } from '../../core/state.js';
import { initialState } from '../../core/turns.js';
import { log } from '../../lib/log.js';
import { KINDS } from '../../terminal/kinds.js';
import { onPath, programOf } from '../../terminal/program.js';
import type { Tmux } from '../../terminal/tmux.js';
import { writeInstructions } from './instructions.js';
import { machineMode } from '../machine/identity.js';
import { joinable, joinMachineDaemon } from '../machine/join.js';
import { startOwnDaemon } from './own-daemon.js';
import { readRegistry, stateDir, unreadableLine } from '../machine/registry.js';
import { installHooks, type Launch } from './hooks.js';
import { nameHeld, noAgentsHere } from './machine-place.js';
import { sessionSuggestion, takenSessions } from './session-names.js';
import { DEMO_JS } from '../paths.js';
import { request, startRequest } from '../requests.js';
import { type Planned, startAgents } from './agent-start.js';
import { inheritedDatabaseEnv, stopAll, waitForDaemon, warnMissingTargets } from './sessions.js';

/** How a conversation on disk relates to the `up` being asked for (pure: tested without tmux). */
export type Continuation =
  | { action: 'new' }
  | { action: 'continue'; messages: number; note: string }
  /** A demo conversation and real agents (or a finished demo): kept in history/, a new one starts. */
  | { action: 'set_aside'; why: string }
  /** Real agents' conversation and the demo agents: they would answer real messages. */
  | { action: 'refuse'; why: string };

export function continuation(state: State | null, messages: number, demo: boolean): Continuation {
  if (!state || messages === 0)
    return state && Boolean(state.demo) !== demo ? { action: 'set_aside', why: '' } : { action: 'new' };
  const wasDemo = Boolean(state.demo);
  const size = `${messages} message${messages === 1 ? '' : 's'}`;
  if (wasDemo && !demo)
    return {
      action: 'set_aside',
      why: `the conversation in this message folder was the demo's (${size}); the real agents start a new one`,
    };
  if (!wasDemo && demo)
    return {
      action: 'refuse',
      why:
        `this message folder holds a conversation of real agents (${size}); ` +
        'the demo agents would answer its messages. "baton up --demo --fresh" keeps it in history/ and starts a demo',
    };
  if (wasDemo && state.finished)
    return { action: 'set_aside', why: `the last demo finished (${size}); starting it again` };
  const where = state.finished
    ? `it finished (${state.finished.reason}): "baton resume" continues it`
    : `${state.current_turn} has the turn${state.pending_reply_to ? ` and owes a reply to ${state.pending_reply_to}` : ''}`;
  return {
    action: 'continue',
    messages,
    note: `continuing a conversation of ${size} (${where}); "baton up --fresh" starts a new one`,
  };
}

export type UpResult =
  | { ok: true; watcher: string | null; kicked: Reply | null; holder: string }
  | { ok: false; code: 1 | 2 | 3 };

type Failed = Extract<UpResult, { ok: false }>;
const failed = (code: 1 | 2 | 3): Failed => ({ ok: false, code });

export async function up(
  config: Config,
  t: Tmux,
  opts: { demo: boolean; fresh: boolean; freshAgents?: boolean; topic?: string | undefined },
): Promise<UpResult> {
  const { demo, topic } = opts;
  const bus = openBus(config);
  if (!(await t.version())) {
    log.error('tmux is not installed (Debian/Ubuntu: apt-get install -y tmux; macOS: brew install tmux)');
    return failed(1);
  }
  if (!config.file)
    log.info(
      `no config.json in ${config.baseDir}: using the built-in default (agents ${config.order.join(', ')} ` +
        'in ./agents/, messages in ./messages/); "baton init" writes one you can edit',
    );
  // Across machines: this machine must be one the config names, and its name not another machine's.
  const problem = noAgentsHere(config) ?? (await nameHeld(config, bus));
  if (problem) {
    log.error(problem.message);
    return failed(problem.code);
  }
  // Handed to the machine's daemon: its registry must read first, or `up` would have nowhere to add it.
  const join = machineMode() ? joinable(config) : null;
  const registry = join?.ok ? readRegistry(stateDir()) : null;
  if (registry && !registry.ok) {
    log.error(unreadableLine(registry.problem));
    return failed(1);
  }
  const plan = planCommands(config, demo);
  if (!plan.ok) return plan;
  if (!(await sessionsAreOurs(config, t, plan.agents))) return failed(1);
  if (!(await settleConversation(config, bus, t, opts))) return failed(1);
  const launches = await prepare(config, bus, plan.agents, demo);
  const blank = demo || config.bus.kind !== 'postgres' ? {} : await inheritedDatabaseEnv(t);
  // The conversation's state as it continues: its agents' client sessions are resumed (agent-start.ts).
  const state = await bus.readState().catch(() => null);
  const freshAgents = Boolean(opts.freshAgents);
  const started = { config, plan: plan.agents, launches, state, demo, freshAgents, topic, blank };
  if (!(await startAgents(t, started))) return failed(1);
  await warnMissingTargets(config, t);

  const watcher = join?.ok
    ? await joinMachineDaemon(config, bus, t)
    : await startOwnDaemon(config, bus, t, { sessions: await t.sessions(), why: join ? join.why : null });
  if (!(await waitForDaemon(bus, 10_000))) {
    const screen = watcher ? await t.run(['capture-pane', '-p', '-t', `=${watcher}:`]) : null;
    log.error(`the daemon did not start${screen ? `; its pane shows:\n${screen.stdout.trim()}` : ''}`);
    return failed(1);
  }
  const kicked = topic === undefined ? null : await kickOff(config, topic);
  const holder = (await bus.readState().catch(() => null))?.current_turn ?? config.firstTurn;
  return { ok: true, watcher, kicked, holder };
}

/** Every agent's command, decided before anything starts, so a missing CLI starts nothing. */
export function planCommands(config: Config, demo: boolean): { ok: true; agents: Planned[] } | Failed {
  const agents: Planned[] = [];
  const missing: string[] = [];
  for (const name of config.order) {
    const agent = config.agents[name]!;
    if (agent.target || !isLocal(config, agent.name)) continue; // another machine's agent: its own `baton up` starts it
    const command = demo ? `node ${JSON.stringify(DEMO_JS)}` : (agent.command ?? KINDS[agent.kind].command);
    if (!command) {
      log.error(`agents.${name}.command: required for kind "${agent.kind}"`);
      return failed(2);
    }
    const program = programOf(command);
    if (!demo && program && !onPath(program, agent.cwd)) missing.push(`${name}: "${program}" (from "${command}")`);
    agents.push({ agent, command });
  }
  if (missing.length) {
    log.error(`these agent commands are not installed or not on PATH:\n  ${missing.join('\n  ')}`);
    log.info('To watch a conversation without them, run the bundled demo agents:  baton up --demo');
    return failed(1);
  }
  return { ok: true, agents };
}

/**
 * Never adopt another conversation's session: its daemon would see its agent answer our messages. Each name
 * suggested instead is free on this tmux server and in the registry, and unlike the other suggestions.
 */
async function sessionsAreOurs(config: Config, t: Tmux, plan: Planned[]): Promise<boolean> {
  const before = await t.sessions();
  const clashes = plan.filter(({ agent }) => {
    const owner = before.get(agent.session)?.owner;
    return owner && owner !== config.messageDir;
  });
  if (!clashes.length) return true;
  const taken = takenSessions(config, before.keys(), stateDir());
  for (const { agent } of clashes) {
    const suggestion = sessionSuggestion(config, agent, taken);
    taken.add(suggestion);
    log.error(
      `tmux session "${agent.session}" belongs to another baton conversation (${before.get(agent.session)!.owner}); ` +
        `give agents.${agent.name}.session another name, e.g. "session": "${suggestion}"`,
    );
  }
  return false;
}

/** What is on disk: continue it, keep it aside, or refuse (demo and real agents never share one). False: stop. */
async function settleConversation(
  config: Config,
  bus: Status & Archive & Liveness & Admin,
  t: Tmux,
  opts: { demo: boolean; fresh: boolean },
): Promise<boolean> {
  let fresh = Boolean(opts.fresh);
  if (!fresh) {
    const stored = await bus.readState().catch(() => null);
    const how = continuation(stored, (await bus.archiveView()).n, opts.demo);
    if (how.action === 'refuse') {
      log.error(how.why);
      return false;
    }
    if (how.action === 'set_aside') {
      if (how.why) log.info(how.why);
      fresh = true;
    }
    if (how.action === 'continue') log.info(how.note);
  }
  if (fresh) {
    await stopAll(config, bus, t, { quiet: !opts.fresh });
    const d = await bus.daemon();
    if (d.running) throw new LeaseHeldError(bus.where, d.holder);
    const moved = await bus.setAside(firstState(config, opts.demo));
    // A folder (files bus) reads better relative; a database's conversation is no path (relative() mangled its URL).
    const where = moved && isAbsolute(moved) ? relative(process.cwd(), moved) || moved : moved;
    if (where) log.info(`previous conversation moved to ${where}`);
  }
  return true;
}

const firstState = (config: Config, demo: boolean): State =>
  demo ? { ...initialState(config.firstTurn), demo: true } : initialState(config.firstTurn);

/**
 * The message folders, the agents' instructions and hooks, in place before any agent starts. The bus first: on
 * PostgreSQL it refuses a config that differs from the conversation's (agreement.ts), and files written before
 * a refusal were left behind.
 */
async function prepare(config: Config, bus: Admin, plan: Planned[], demo: boolean): Promise<Map<string, Launch>> {
  await bus.prepare(firstState(config, demo));
  const notes = await writeInstructions(config);
  for (const f of notes.written) log.info(`wrote ${relative(process.cwd(), f) || f}`);
  for (const f of notes.kept) log.info(`kept your own ${relative(process.cwd(), f) || f}`);
  // The agents' own hooks report what the model got and the end of each turn.
  const agents = plan.map((p) => p.agent);
  return demo ? new Map<string, Launch>() : installHooks(config, agents);
}

/**
 * `up --topic`: give the topic once the holder can take it. A real agent CLI takes seconds to show its
 * input box, so an unavailable pane is waited for (up to 2 minutes, saying why), anything else is final.
 */
async function kickOff(config: Config, topic: string): Promise<Reply> {
  const until = Date.now() + 120_000;
  let said = '';
  for (;;) {
    const reply = await request(config, startRequest(topic));
    if (reply.ok || !reply.unavailable || Date.now() > until) return reply;
    if (reply.message !== said) log.info(`waiting to give the topic: ${reply.message.replace(/^not sent: /, '')}`);
    said = reply.message;
    await sleep(1000);
  }
}
