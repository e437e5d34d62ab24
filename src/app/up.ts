/**
 * `baton up`: start a conversation — each agent's tmux session and the daemon's — and say what it
 * continues. Demo and real agents never share a conversation or a session (issue 12): real agents after
 * a demo start a new conversation (the demo's is kept aside), the demo refuses real agents' conversation.
 */
import { relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { LeaseHeldError } from '../bus/bus.js';
import { openBus } from '../bus/open.js';
import { isLocal, type Agent, type Config } from '../config/config.js';
import type { Reply } from '../core/requests.js';
import type { State } from '../core/state.js';
import { initialState } from '../core/turns.js';
import { log } from '../lib/log.js';
import { KINDS } from '../terminal/kinds.js';
import { findPane } from '../terminal/pane.js';
import { onPath, programOf } from '../terminal/program.js';
import type { Tmux } from '../terminal/tmux.js';
import { mkdir } from 'node:fs/promises';
import { writeInstructions } from './instructions.js';
import { installHooks, withLaunch, type Launch } from './hooks.js';
import { DEMO_JS, PASTE_TRACKER } from './paths.js';
import { request, startRequest } from './requests.js';
import { paneEnv, sessionSuggestion, startWatcher, stopAll, waitForDaemon } from './sessions.js';

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
  if (!wasDemo && demo) {
    return {
      action: 'refuse',
      why: `this message folder holds a conversation of real agents (${size}); the demo agents would answer its messages. "baton up --demo --fresh" keeps it in history/ and starts a demo`,
    };
  }
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
  | { ok: false; code: 1 | 2 };

export async function up(
  config: Config,
  t: Tmux,
  opts: { demo: boolean; fresh: boolean; topic?: string | undefined },
): Promise<UpResult> {
  const demo = opts.demo;
  const topic = opts.topic;
  const bus = openBus(config);
  const root = config.messageDir;
  if (!(await t.version())) {
    log.error('tmux is not installed (Debian/Ubuntu: apt-get install -y tmux; macOS: brew install tmux)');
    return { ok: false, code: 1 };
  }
  if (!config.file) {
    log.info(
      `no config.json in ${config.baseDir}: using the built-in default (agents ${config.order.join(', ')} in ./agents/, messages in ./messages/); "baton init" writes one you can edit`,
    );
  }

  // Decide every agent's command before starting anything, so a missing CLI starts nothing.
  const plan: { agent: Agent; command: string }[] = [];
  const missing: string[] = [];
  for (const name of config.order) {
    const agent = config.agents[name]!;
    if (agent.target || !isLocal(config, agent.name)) continue; // another machine's agent: its own `baton up` starts it
    const command = demo ? `node ${JSON.stringify(DEMO_JS)}` : (agent.command ?? KINDS[agent.kind].command);
    if (!command) {
      log.error(`agents.${name}.command: required for kind "${agent.kind}"`);
      return { ok: false, code: 2 };
    }
    const program = programOf(command);
    if (!demo && program && !onPath(program, agent.cwd)) missing.push(`${name}: "${program}" (from "${command}")`);
    plan.push({ agent, command });
  }
  if (missing.length) {
    log.error(`these agent commands are not installed or not on PATH:\n  ${missing.join('\n  ')}`);
    log.info('To watch a conversation without them, run the bundled demo agents:  baton up --demo');
    return { ok: false, code: 1 };
  }

  // Never adopt another conversation's session: its daemon would see its agent answer our messages.
  const before = await t.sessions();
  const taken = plan.filter(({ agent }) => {
    const owner = before.get(agent.session)?.owner;
    return owner && owner !== root;
  });
  if (taken.length) {
    for (const { agent } of taken) {
      const suggestion = sessionSuggestion(config, agent);
      log.error(
        `tmux session "${agent.session}" belongs to another baton conversation (${before.get(agent.session)!.owner}); give agents.${agent.name}.session another name, e.g. "session": "${suggestion}"`,
      );
    }
    return { ok: false, code: 1 };
  }

  // What is on disk: continue it, keep it aside, or refuse (demo and real agents never share one).
  let fresh = Boolean(opts.fresh);
  if (!fresh) {
    const stored = await bus.readState().catch(() => null);
    const how = continuation(stored, (await bus.archiveView()).n, demo);
    if (how.action === 'refuse') {
      log.error(how.why);
      return { ok: false, code: 1 };
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
    const moved = await bus.setAside();
    if (moved) log.info(`previous conversation moved to ${relative(process.cwd(), moved) || moved}`);
  }

  const notes = await writeInstructions(config);
  for (const f of notes.written) log.info(`wrote ${relative(process.cwd(), f) || f}`);
  for (const f of notes.kept) log.info(`kept your own ${relative(process.cwd(), f) || f}`);
  // The agents' own hooks report what the model got and the end of each turn (issue 16): in place before they start.
  const launches = demo
    ? new Map<string, Launch>()
    : await installHooks(
        config,
        plan.map((p) => p.agent),
      );
  await bus.prepare({ ...initialState(config.firstTurn), ...(demo ? { demo: true } : {}) });

  const sessions = await t.sessions();
  for (const { agent, command } of plan) {
    const existing = sessions.get(agent.session);
    if (existing && existing.owner !== root) {
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
        log.info(
          `${agent.name}: session "${agent.session}" already running${demo ? ' the demo agent' : ''}, left alone`,
        );
        continue;
      }
      log.info(
        pane && !pane.dead
          ? `${agent.name}: session "${agent.session}" runs the ${pane.demo ? 'demo agent' : 'real agent'}; starting ${demo ? 'the demo agent' : `"${command}"`} in its place`
          : `${agent.name}: the agent in session "${agent.session}" had exited; starting it again`,
      );
      await t.killSession(agent.session);
    }
    await mkdir(agent.cwd, { recursive: true });
    const launch = launches.get(agent.name);
    const started = withLaunch(command, agent, launch);
    if (started.skipped)
      log.warn(`${agent.name}: ${started.skipped}; add them to agents.${agent.name}.command yourself`);
    const env = {
      ...paneEnv(config, agent),
      ...launch?.env,
      ...(demo ? { BATON_DEMO: '1', ...(topic !== undefined ? { BATON_DEMO_WAIT_TOPIC: '1' } : {}) } : {}),
    };
    const r = await t.newSession({
      name: agent.session,
      cwd: agent.cwd,
      command: started.command,
      env,
      owner: root,
      demo,
      pasteTracker: PASTE_TRACKER,
    });
    if (!r.ok) {
      log.error(`${agent.name}: cannot start session "${agent.session}": ${r.stderr}`);
      return { ok: false, code: 1 };
    }
    log.success(`${agent.name}: started ${demo ? 'the demo agent' : `"${command}"`} in session ${agent.session}`);
  }

  for (const name of config.order) {
    const agent = config.agents[name]!;
    if (agent.target && isLocal(config, name) && !(await findPane(t, agent)))
      log.warn(`${name}: no pane at ${agent.target} yet; messages for ${name} wait until it exists`);
  }

  const watcher = await startWatcher(config, bus, t, sessions);
  if (!(await waitForDaemon(bus, 10_000))) {
    const screen = watcher ? await t.run(['capture-pane', '-p', '-t', `=${watcher}:`]) : null;
    log.error(`the daemon did not start${screen ? `; its pane shows:\n${screen.stdout.trim()}` : ''}`);
    return { ok: false, code: 1 };
  }
  let kicked: Reply | null = null;
  if (opts.topic !== undefined) kicked = await kickOff(config, opts.topic);
  const holder = (await bus.readState().catch(() => null))?.current_turn ?? config.firstTurn;
  return { ok: true, watcher, kicked, holder };
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
