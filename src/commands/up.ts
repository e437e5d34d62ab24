import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, rename } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { basename, delimiter, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Agent, Config } from '../config.js';
import { archivedCounters } from '../archive.js';
import { ensureDir } from '../fsx.js';
import { layout } from '../layout.js';
import { daemonStatus, LockHeldError, readHolder } from '../lock.js';
import { log } from '../log.js';
import { writeInstructions } from '../instructions.js';
import { KINDS } from '../kinds.js';
import { findPane } from '../pane.js';
import { onPath, programOf } from '../program.js';
import { readState, writeState, type State } from '../state.js';
import type { Reply } from '../requests.js';
import { DEMO_TURNS } from '../demo/script.js';
import { request, startRequest } from './conversation.js';
import { initialState } from '../turns.js';
import type { Tmux } from '../tmux.js';
import { attachHint, BIN_DIR, CLI_JS, configFrom, DEMO_JS, noPositionals, tmux, WATCHER_SESSION, type CommandSpec } from './common.js';
import { DEFAULT_UI_PORT } from './ui.js';
import { stopAll } from './down.js';


/** The environment every pane gets, so `baton post` and send.sh find this conversation. */
export function paneEnv(config: Config, agent?: Agent): Record<string, string> {
  const env: Record<string, string> = {
    PATH: `${BIN_DIR}${delimiter}${process.env.PATH ?? ''}`,
    ...(config.file ? { BATON_CONFIG: config.file } : { BATON_HOME: config.baseDir }),
  };
  if (process.env.BATON_TMUX_SOCKET) env.BATON_TMUX_SOCKET = process.env.BATON_TMUX_SOCKET;
  if (agent) Object.assign(env, agent.env, { BATON_AGENT: agent.name });
  return env;
}

/** Move the last conversation's runtime data to message_dir/history/<time>/ (never deleted). */
async function setAside(config: Config): Promise<string | null> {
  const l = layout(config);
  const dest = join(l.root, 'history', new Date().toISOString().replace(/[:.]/g, '-'));
  const moves: [string, string][] = [];
  for (const p of [l.state, l.archive, l.rejected, l.events, l.claims, l.pending, l.requests]) if (existsSync(p)) moves.push([p, join(dest, basename(p))]);
  for (const d of config.directions) {
    for (const name of existsSync(d.dir) ? await readdir(d.dir) : []) moves.push([join(d.dir, name), join(dest, d.name, name)]);
  }
  if (!moves.length) return null;
  for (const [from, to] of moves) {
    await mkdir(resolve(to, '..'), { recursive: true });
    await rename(from, to);
  }
  return dest;
}

async function waitForDaemon(config: Config, timeoutMs: number): Promise<boolean> {
  const l = layout(config);
  for (let waited = 0; waited < timeoutMs; waited += 100) {
    if ((await daemonStatus(l)).running) return true;
    await sleep(100);
  }
  return false;
}

/** How a conversation on disk relates to the `up` being asked for (pure: tested without tmux). */
export type Continuation =
  | { action: 'new' }
  | { action: 'continue'; messages: number; note: string }
  /** A demo conversation and real agents (or a finished demo): kept in history/, a new one starts. */
  | { action: 'set_aside'; why: string }
  /** Real agents' conversation and the demo agents: they would answer real messages. */
  | { action: 'refuse'; why: string };

export function continuation(state: State | null, messages: number, demo: boolean): Continuation {
  if (!state || messages === 0) return state && Boolean(state.demo) !== demo ? { action: 'set_aside', why: '' } : { action: 'new' };
  const wasDemo = Boolean(state.demo);
  const size = `${messages} message${messages === 1 ? '' : 's'}`;
  if (wasDemo && !demo) return { action: 'set_aside', why: `the conversation in this message folder was the demo's (${size}); the real agents start a new one` };
  if (!wasDemo && demo) {
    return { action: 'refuse', why: `this message folder holds a conversation of real agents (${size}); the demo agents would answer its messages. "baton up --demo --fresh" keeps it in history/ and starts a demo` };
  }
  if (wasDemo && state.finished) return { action: 'set_aside', why: `the last demo finished (${size}); starting it again` };
  const where = state.finished
    ? `it finished (${state.finished.reason}): "baton resume" continues it`
    : `${state.current_turn} has the turn${state.pending_reply_to ? ` and owes a reply to ${state.pending_reply_to}` : ''}`;
  return { action: 'continue', messages, note: `continuing a conversation of ${size} (${where}); "baton up --fresh" starts a new one` };
}

export const up: CommandSpec = {
  usage: 'up [--demo] [--fresh] [--topic TEXT]',
  summary: 'start the conversation: a tmux session per agent and the daemon',
  options: { demo: { type: 'boolean' }, fresh: { type: 'boolean' }, topic: { type: 'string' } },
  examples: ['baton up --demo', 'baton up --topic "Design a rate limiter for our API; agree on one design"', 'baton up --fresh'],
  help: `
Creates the message folders and state.json, starts a tmux session per agent (named after the agent,
in its cwd, running its command, with BATON_AGENT and BATON_CONFIG set and baton on PATH) and a
"watcher" session running "baton daemon". Running sessions are left alone; it says which
conversation it continues ("continuing a conversation of 20 messages").

  --demo         run the bundled demo agents instead of the configured commands: small programs that
                 answer each other through "baton post" (a short scripted conversation that ends by
                 itself after ${DEMO_TURNS} messages), so you can watch baton with no agent CLI installed
  --fresh        stop this config's sessions first and start a new conversation; the old state.json,
                 archive/, rejected/, pending/, events.jsonl and waiting files are moved to
                 message_dir/history/<time>/ (nothing is deleted)
  --topic TEXT   once the agent holding the turn is ready, type TEXT to it as the opening of its turn
                 (the same as "baton start TEXT"); "-" reads it from standard input

Demo and real agents never share a conversation or a session: real agents after a demo start a new
conversation (the demo's is kept in history/) and replace the demo programs in their sessions; the
demo refuses to join real agents' conversation (use --demo --fresh).
Agents with a "target" pane in config.json are not started: baton types into that pane.
Sessions baton starts are tagged with this conversation; one belonging to another conversation is
never adopted (exit 1). An agent whose program has exited is started again.

Each agent's instructions file (CLAUDE.md for claude, AGENTS.md for codex, GEMINI.md for gemini,
CONVENTIONS.md for aider, AGENTS.md otherwise) is written into its cwd from the config: who it is,
whom it talks to, how to reply. A file you wrote yourself (without baton's marker line) is kept.`,
  async run(inv) {
    noPositionals(inv);
    const config = configFrom(inv);
    const demo = Boolean(inv.values.demo);
    const topicArg = inv.values.topic as string | undefined;
    const topic = topicArg === '-' ? readFileSync(0, 'utf8') : topicArg;
    if (topic !== undefined) startRequest(topic); // an empty topic is a usage error before anything starts
    const t = tmux();
    const l = layout(config);
    if (!(await t.version())) {
      log.error('tmux is not installed (Debian/Ubuntu: apt-get install -y tmux; macOS: brew install tmux)');
      return 1;
    }
    if (!config.file) {
      log.info(`no config.json in ${config.baseDir}: using the built-in default (agents ${config.order.join(', ')} in ./agents/, messages in ./messages/); "baton init" writes one you can edit`);
    }

    // Decide every agent's command before starting anything, so a missing CLI starts nothing.
    const plan: { agent: Agent; command: string }[] = [];
    const missing: string[] = [];
    for (const name of config.order) {
      const agent = config.agents[name]!;
      if (agent.target) continue;
      const command = demo ? `node ${JSON.stringify(DEMO_JS)}` : (agent.command ?? KINDS[agent.kind].command);
      if (!command) {
        log.error(`agents.${name}.command: required for kind "${agent.kind}"`);
        return 2;
      }
      const program = programOf(command);
      if (!demo && program && !onPath(program, agent.cwd)) missing.push(`${name}: "${program}" (from "${command}")`);
      plan.push({ agent, command });
    }
    if (missing.length) {
      log.error(`these agent commands are not installed or not on PATH:\n  ${missing.join('\n  ')}`);
      log.info('To watch a conversation without them, run the bundled demo agents:  baton up --demo');
      return 1;
    }

    // Never adopt another conversation's session: its daemon would see its agent answer our messages.
    const before = await t.sessions();
    const taken = plan.filter(({ agent }) => {
      const owner = before.get(agent.session)?.owner;
      return owner && owner !== l.root;
    });
    if (taken.length) {
      for (const { agent } of taken) {
        const suggestion = sessionSuggestion(config, agent);
        log.error(`tmux session "${agent.session}" belongs to another baton conversation (${before.get(agent.session)!.owner}); give agents.${agent.name}.session another name, e.g. "session": "${suggestion}"`);
      }
      return 1;
    }

    // What is on disk: continue it, keep it aside, or refuse (demo and real agents never share one).
    let fresh = Boolean(inv.values.fresh);
    if (!fresh) {
      const stored = await readState(l.state).catch(() => null);
      const how = continuation(stored, (await archivedCounters(l.archive)).length, demo);
      if (how.action === 'refuse') {
        log.error(how.why);
        return 1;
      }
      if (how.action === 'set_aside') {
        if (how.why) log.info(how.why);
        fresh = true;
      }
      if (how.action === 'continue') log.info(how.note);
    }
    if (fresh) {
      await stopAll(config, t, { quiet: !inv.values.fresh });
      const d = await daemonStatus(l);
      if (d.running) throw new LockHeldError(l.root, readHolder(l));
      const moved = await setAside(config);
      if (moved) log.info(`previous conversation moved to ${relative(process.cwd(), moved) || moved}`);
    }

    await Promise.all([l.root, l.archive, l.rejected, ...config.directions.map((d) => d.dir)].map(ensureDir));
    const notes = await writeInstructions(config);
    for (const f of notes.written) log.info(`wrote ${relative(process.cwd(), f) || f}`);
    for (const f of notes.kept) log.info(`kept your own ${relative(process.cwd(), f) || f}`);
    // Only state.json's owner writes it: the running daemon, or (before one starts) up itself.
    // With an archive but no state.json, the daemon rebuilds the state from the archive instead.
    if (!(await daemonStatus(l)).running && (await readState(l.state)) === null && (await archivedCounters(l.archive)).length === 0) {
      await writeState(l.state, { ...initialState(config.firstTurn), ...(demo ? { demo: true } : {}) });
    }

    const sessions = await t.sessions();
    for (const { agent, command } of plan) {
      const existing = sessions.get(agent.session);
      if (existing && existing.owner !== l.root) {
        // A person's own session of that name: used as it is, never killed.
        const pane = await findPane(t, agent);
        log.info(
          pane && !pane.dead
            ? `${agent.name}: session "${agent.session}" exists (not started by baton); messages will be typed into it`
            : `${agent.name}: session "${agent.session}" exists (not started by baton) but its pane is dead; messages wait until it is back`,
        );
        continue;
      }
      if (existing) {
        const pane = await findPane(t, agent); // the pinned pane, even if the window was split
        if (pane && !pane.dead && pane.demo === demo) {
          log.info(`${agent.name}: session "${agent.session}" already running${demo ? ' the demo agent' : ''}, left alone`);
          continue;
        }
        log.info(
          pane && !pane.dead
            ? `${agent.name}: session "${agent.session}" runs the ${pane.demo ? 'demo agent' : 'real agent'}; starting ${demo ? 'the demo agent' : `"${command}"`} in its place`
            : `${agent.name}: the agent in session "${agent.session}" had exited; starting it again`,
        );
        await t.killSession(agent.session);
      }
      await ensureDir(agent.cwd);
      const env = { ...paneEnv(config, agent), ...(demo ? { BATON_DEMO: '1', ...(topic !== undefined ? { BATON_DEMO_WAIT_TOPIC: '1' } : {}) } : {}) };
      const r = await t.newSession({ name: agent.session, cwd: agent.cwd, command, env, owner: l.root, demo });
      if (!r.ok) {
        log.error(`${agent.name}: cannot start session "${agent.session}": ${r.stderr}`);
        return 1;
      }
      log.success(`${agent.name}: started ${demo ? 'the demo agent' : `"${command}"`} in session ${agent.session}`);
    }

    for (const name of config.order) {
      const agent = config.agents[name]!;
      if (agent.target && !(await findPane(t, agent))) log.warn(`${name}: no pane at ${agent.target} yet; messages for ${name} wait until it exists`);
    }

    const watcher = await startWatcher(config, t, sessions);
    if (!(await waitForDaemon(config, 10_000))) {
      const screen = watcher ? await t.run(['capture-pane', '-p', '-t', `=${watcher}:`]) : null;
      log.error(`the daemon did not start${screen ? `; its pane shows:\n${screen.stdout.trim()}` : ''}`);
      return 1;
    }
    const first = config.agents[config.order[0]!]!;
    // Commands a person can paste as they are: `baton` if it is on their PATH, else the node invocation.
    // A path that climbs out of the current folder reads better absolute.
    const rel = relative(process.cwd(), CLI_JS);
    const self = onPath('baton', process.cwd()) ? 'baton' : `node ${rel && !rel.startsWith('..') ? rel : CLI_JS}`;
    const withConfig = (cmd: string) => `${self} ${cmd}${config.file ? ` --config ${relative(process.cwd(), config.file) || config.file}` : ''}`;
    let kicked: string | null = null;
    if (topic !== undefined) {
      const reply = await kickOff(config, topic);
      if (!reply.ok) {
        log.error(`the topic was not given: ${reply.message}`);
        log.info(`when ${(await readState(l.state).catch(() => null))?.current_turn ?? 'the first agent'} is ready: ${withConfig('start "…"')}`);
        return 1;
      }
      kicked = reply.message;
    }
    const holder = (await readState(l.state).catch(() => null))?.current_turn ?? config.firstTurn;
    process.stdout.write(
      [
        '',
        `baton is running: ${config.order.join(', ')} take turns${demo ? ' (demo agents)' : ''}.`,
        ...(kicked ? [`  topic:            ${kicked}`] : demo ? [] : [`  give them a topic: ${withConfig(`start "…"`)}   (typed to ${holder}, who opens)`]),
        `  watch an agent:   ${first.target ? withConfig(`attach ${first.name}`) : attachHint(t, first.session)}   (detach: Ctrl-b d)`,
        ...(watcher ? [`  the daemon:       ${attachHint(t, watcher)}`] : []),
        `  status:           ${withConfig('status')}`,
        `  in a browser:     ${withConfig('ui')}   (a live dashboard on http://127.0.0.1:${DEFAULT_UI_PORT}/)`,
        `  stop everything:  ${withConfig('down')}`,
        '',
      ].join('\n'),
    );
    return 0;
  },
};

/** A session name unique to this project: `<folder>-<agent>`, within tmux's rules. */
export function sessionSuggestion(config: Pick<Config, 'baseDir'>, agent: Pick<Agent, 'name'>): string {
  const folder = basename(config.baseDir).replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40) || 'baton';
  return `${folder}-${agent.name}`;
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

/** "watcher", unless a session of that name is not ours: then "watcher-<folder>-<hash>". */
export function watcherName(root: string, sessions: Map<string, { owner: string }>): string {
  const existing = sessions.get(WATCHER_SESSION);
  if (!existing || existing.owner === root) return WATCHER_SESSION;
  return `${WATCHER_SESSION}-${basename(dirname(root))}-${createHash('sha1').update(root).digest('hex').slice(0, 6)}`;
}

/**
 * Start the daemon in the "watcher" session unless a live daemon already holds the folder. When another
 * conversation on this tmux server has "watcher", ours is "watcher-<folder>". Returns the session name.
 */
async function startWatcher(config: Config, t: Tmux, sessions: Map<string, { owner: string }>): Promise<string | null> {
  // (reassigned when a concurrent `up` took the name first)
  const l = layout(config);
  if ((await daemonStatus(l)).running) {
    log.info(`daemon already running (pid ${readHolder(l)?.pid}), left alone`);
    return [...sessions].find(([n, s]) => s.owner === l.root && n.startsWith(WATCHER_SESSION))?.[0] ?? null;
  }
  const configArg = config.file ? ` --config ${JSON.stringify(config.file)}` : '';
  const command = `node ${JSON.stringify(CLI_JS)} daemon${configArg}`;
  let name = watcherName(l.root, sessions);
  for (let attempt = 0; ; attempt++) {
    // Our own watcher session whose daemon is gone (dead pane) is replaced.
    if (sessions.get(name)?.owner === l.root) await t.killSession(name);
    const r = await t.newSession({ name, cwd: isAbsolute(config.baseDir) ? config.baseDir : process.cwd(), command, env: paneEnv(config), owner: l.root });
    if (r.ok) break;
    // Another conversation's `up` took "watcher" between our look and our start: look again, once.
    if (attempt > 0 || !/duplicate session/.test(r.stderr)) throw new Error(`cannot start the watcher session: ${r.stderr}`);
    sessions = await t.sessions();
    name = watcherName(l.root, sessions);
  }
  log.success(`daemon started in session ${name}`);
  return name;
}
