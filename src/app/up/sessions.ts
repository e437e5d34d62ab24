/**
 * A conversation's tmux sessions: each agent's, the daemon's ("watcher"), and stopping what `baton up` started.
 * Each is tagged with its conversation (@baton_config = the message folder), so `up` never adopts and `down`
 * never kills another conversation's sessions, or a person's own session of the same name.
 */
import { mkdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, isAbsolute } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Liveness } from '../../bus/bus.js';
import { isLocal, type Agent, type Config } from '../../config/config.js';
import { log } from '../../lib/log.js';
import { shellQuote } from '../../lib/shell.js';
import { findPane } from '../../terminal/pane.js';
import type { Tmux } from '../../terminal/tmux.js';
import { withLaunch, type Launch } from './hooks.js';
import { DATABASE_ENV, paneEnv } from '../pane-env.js';
import { CLI_JS, PASTE_TRACKER, WATCHER_SESSION } from '../paths.js';
import { ownSessionName } from '../machine/join.js';
import { isMachineDaemon, leaveMachineDaemon, leftLabel } from '../machine/leave.js';
import { entryOf, keyOf, stateDir, unregisterOwn } from '../machine/registry.js';
import { sessionSuggestion } from './session-names.js';
import { recordServer } from '../tmux-server.js';

/**
 * The database's variables a tmux server holds in its global environment (started from a shell that had them),
 * which every pane inherits: blanked for an agent's pane (tmux cannot unset one per session), and said once.
 */
export async function inheritedDatabaseEnv(t: Tmux): Promise<Record<string, string>> {
  const r = await t.run(['show-environment', '-g']);
  if (!r.ok) return {}; // no server yet: the one baton starts never gets them (newSession's withhold)
  const names = r.stdout.split('\n').map((l) => l.slice(0, l.indexOf('=')));
  const held = names.filter((k): k is (typeof DATABASE_ENV)[number] => (DATABASE_ENV as readonly string[]).includes(k));
  if (held.length)
    log.warn(
      `this tmux server holds ${held.join(', ')} in its global environment (it was started from a shell that ` +
        "had them): baton blanks them in the agents' panes, but any pane of this server can read them " +
        '(tmux show-environment -g); start tmux from a shell without them to keep them from every pane',
    );
  return Object.fromEntries(held.map((k) => [k, '']));
}

/** What starting an agent did: started its client, left a running one (or a person's session) alone, or failed. */
export type AgentStart = 'started' | 'left' | 'failed';

/** Start one agent's session, or leave a running one alone. */
export async function startAgent(
  t: Tmux,
  o: {
    config: Config;
    agent: Agent;
    command: string;
    launch: Launch | undefined;
    sessions: Map<string, { owner: string }>;
    demo: boolean;
    topic: string | undefined;
    /** `blank`: the server's database variables, blanked; `resume`: the client's resume arguments (agent-start.ts). */
    blank?: Record<string, string>;
    resume?: string[] | undefined;
  },
): Promise<AgentStart> {
  const { config, agent, command, launch, demo, topic } = o;
  const root = config.messageDir;
  const existing = o.sessions.get(agent.session);
  if (existing && existing.owner !== root) {
    // A person's own session of that name: used as it is, never killed.
    const pane = await findPane(t, agent);
    const own = `${agent.name}: session "${agent.session}" exists (not started by baton)`;
    log.info(
      pane && !pane.dead
        ? `${own}; messages will be typed into it`
        : `${own} but its pane is dead; messages wait until it is back`,
    );
    return 'left';
  }
  const what = demo ? 'the demo agent' : `"${command}"`;
  if (existing) {
    const pane = await findPane(t, agent); // the pinned pane, even if the window was split
    if (pane && !pane.dead && pane.demo === demo) {
      log.info(`${agent.name}: session "${agent.session}" already running${demo ? ' the demo agent' : ''}, left alone`);
      return 'left';
    }
    log.info(
      pane && !pane.dead
        ? `${agent.name}: session "${agent.session}" runs the ${pane.demo ? 'demo agent' : 'real agent'}; ` +
            `starting ${what} in its place`
        : `${agent.name}: the agent in session "${agent.session}" had exited; starting it again`,
    );
    await t.killSession(agent.session);
  }
  await mkdir(agent.cwd, { recursive: true });
  const started = withLaunch(command, agent, launch);
  if (started.skipped) log.warn(`${agent.name}: ${started.skipped}; add them to agents.${agent.name}.command yourself`);
  const line = o.resume?.length ? `${started.command} ${o.resume.map(shellQuote).join(' ')}` : started.command;
  const env = {
    ...(demo ? {} : o.blank),
    ...paneEnv(config, agent, { database: demo }),
    ...launch?.env,
    ...(demo ? { BATON_DEMO: '1', ...(topic !== undefined ? { BATON_DEMO_WAIT_TOPIC: '1' } : {}) } : {}),
  };
  const r = await t.newSession({
    name: agent.session,
    cwd: agent.cwd,
    command: line,
    env,
    owner: root,
    demo,
    // How its client started: who holds the turn in a new pane is told what it owes (daemon/restarted.ts).
    start: o.resume?.length ? 'resumed' : 'fresh',
    pasteTracker: PASTE_TRACKER,
    withhold: DATABASE_ENV,
  });
  if (!r.ok) {
    // Taken between our look and our start: by another `up` of this conversation (it serves), or of another.
    const owner = /duplicate session/.test(r.stderr) ? (await t.sessions()).get(agent.session)?.owner : undefined;
    if (owner === root) {
      log.info(`${agent.name}: session "${agent.session}" started by another "baton up" of this conversation`);
      return 'left';
    }
    const free = owner ? sessionSuggestion(config, agent, new Set((await t.sessions()).keys())) : '';
    log.error(
      owner
        ? `${agent.name}: tmux session "${agent.session}" was just started by another baton conversation (${owner}); ` +
            `give agents.${agent.name}.session another name, e.g. "session": "${free}"`
        : `${agent.name}: cannot start session "${agent.session}": ${r.stderr}`,
    );
    return 'failed';
  }
  log.success(
    `${agent.name}: started ${what} in session ${agent.session}${o.resume?.length ? ', resuming its session' : ''}`,
  );
  return 'started';
}

/** Agents given as a pane ("target") are not started: say when that pane is not there yet. */
export async function warnMissingTargets(config: Config, t: Tmux): Promise<void> {
  for (const name of config.order) {
    const agent = config.agents[name]!;
    if (agent.target && isLocal(config, name) && !(await findPane(t, agent)))
      log.warn(`${name}: no pane at ${agent.target} yet; messages for ${name} wait until it exists`);
  }
}

/**
 * Wait until a daemon holds the lease and has said who it is (files bus: a lock is held before its holder file
 * is written, and `up` names it next); one unnamed after a second (holder file removed by hand) counts.
 */
export async function waitForDaemon(bus: Liveness, timeoutMs: number): Promise<boolean> {
  for (let waited = 0; waited < timeoutMs; waited += 100) {
    const d = await bus.daemon();
    if (d.running && (d.pid !== null || waited >= 1000)) return true;
    await sleep(100);
  }
  return false;
}

/** Stop the daemon (SIGTERM, so it finishes a delivery and releases its lock), then the sessions. */
export async function stopAll(config: Config, bus: Liveness, t: Tmux, opts: { quiet: boolean }): Promise<string[]> {
  const stopped: string[] = [];
  // Served by the machine's daemon: it lets go of this conversation and serves the others on.
  const left = await leaveMachineDaemon(config, bus);
  const d = left.left ? { running: false, holder: null } : await bus.daemon();
  const holder = d.running ? d.holder : null;
  if (left.left && !left.released) log.warn(`the machine's daemon (pid ${left.pid}) has not let go of it yet`);
  // A daemon on another host (a shared folder) cannot be signalled from here.
  if (holder && holder.host !== hostname()) {
    log.warn(`the daemon runs on ${holder.host} (pid ${holder.pid}); stop it there`);
  } else if (holder && isMachineDaemon(holder.pid)) {
    // Served by the machine's daemon, though no longer in its list: it lets go of it by itself.
    log.warn(`the machine's daemon (pid ${holder.pid}) still serves it; it is left running for the others`);
  } else if (holder && (holder.serves ?? 1) > 1) {
    // One process serving several conversations (`baton daemon A B C`): stopping it would stop the others too.
    log.warn(
      `the daemon (pid ${holder.pid}) also serves ${holder.serves! - 1} other conversation(s); ` +
        'it is left running — stop it yourself to stop this one',
    );
  } else if (holder) {
    try {
      process.kill(holder.pid, 'SIGTERM');
      for (let i = 0; i < 100 && (await bus.daemon()).running; i++) await sleep(100);
      stopped.push(`daemon (pid ${holder.pid})`);
    } catch (err) {
      log.warn(`cannot signal the daemon (pid ${holder.pid}): ${(err as Error).message}`);
    }
  }
  // A daemon of its own stopped (or none ran): `ls` no longer lists it (a registry that does not read: ls says so).
  if (!left.left && !(await bus.daemon()).running)
    await unregisterOwn(stateDir(), keyOf(entryOf(config, null))).catch(() => {});
  // Only sessions this conversation started: never a person's own "claude1", nor another conversation's.
  for (const [name, { owner }] of await t.sessions())
    if (owner === config.messageDir && (await t.killSession(name))) stopped.push(`session ${name}`);
  // Said last: what became of the machine's daemon ends the line ("…; it still serves 2 other conversations").
  if (left.left && left.released) stopped.push(leftLabel(left));
  if (!opts.quiet) log.info(stopped.length ? `stopped ${stopped.join(', ')}` : 'nothing was running');
  return stopped;
}

const watcherName = (root: string, sessions: Map<string, { owner: string }>): string =>
  ownSessionName(WATCHER_SESSION, root, sessions, basename(dirname(root)));

/** Start the daemon in its session (watcherName) unless a live daemon already holds the folder; returns its name. */
export async function startWatcher(
  config: Config,
  bus: Liveness,
  t: Tmux,
  sessions: Map<string, { owner: string }>,
): Promise<string | null> {
  const root = config.messageDir;
  const d = await bus.daemon();
  if (d.running) {
    log.info(`daemon already running (pid ${d.pid}), left alone`);
    await recordServer(config, t);
    return [...sessions].find(([n, s]) => s.owner === root && n.startsWith(WATCHER_SESSION))?.[0] ?? null;
  }
  const configArg = config.file ? ` --config ${JSON.stringify(config.file)}` : '';
  const command = `node ${JSON.stringify(CLI_JS)} daemon${configArg}`;
  let name = watcherName(root, sessions);
  for (let attempt = 0; ; attempt++) {
    // Our own watcher session whose daemon is gone (dead pane) is replaced.
    if (sessions.get(name)?.owner === root) await t.killSession(name);
    const r = await t.newSession({
      name,
      cwd: isAbsolute(config.baseDir) ? config.baseDir : process.cwd(),
      command,
      env: paneEnv(config),
      owner: root,
      withhold: DATABASE_ENV,
    });
    if (r.ok) break;
    // Another conversation's `up` took "watcher" between our look and our start: look again, once.
    if (attempt > 0 || !/duplicate session/.test(r.stderr))
      throw new Error(`cannot start the watcher session: ${r.stderr}`);
    sessions = await t.sessions();
    name = watcherName(root, sessions);
  }
  await recordServer(config, t);
  log.success(`daemon started in session ${name}`);
  return name;
}
