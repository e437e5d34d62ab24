/**
 * Starting an agent of a conversation that was running (reboot, crash, `baton down`, a killed pane) with its
 * client's own resume, so it keeps its memory (docs/protocol.md §12): the session ID its hooks reported is in
 * the state (core/sessions.ts), each kind says how to resume (terminal/kinds.ts); `--fresh-agents` starts new.
 * A session the client no longer has is seen before the start (the hooks' `transcript_path` is gone), or after:
 * the client exits at once (what each prints and its exit code: docs/decisions/0014-a-resume-the-client-refuses)
 * while `up` waits for it to come up (0.5–4 s measured), and it is started new, said. Not resumed, said why:
 * another kind or folder than the session's (Codex asks which folder in a dialog), a command not the kind's own
 * program (a wrapper takes no added arguments), an ID not shaped like a client's.
 */
import { existsSync } from 'node:fs';
import { appendFile, readFile } from 'node:fs/promises';
import { sep } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Agent, Config } from '../../config/config.js';
import { geminiResumeRepair } from '../../core/gemini-resume.js';
import { isSessionId } from '../../core/sessions.js';
import type { State } from '../../core/state.js';
import { clientFolders } from '../../terminal/hooks/client-folders.js';
import { KINDS } from '../../terminal/kinds.js';
import { capture, findPane } from '../../terminal/pane.js';
import { programName } from '../../terminal/program.js';
import { readScreen } from '../../terminal/readiness.js';
import type { Tmux } from '../../terminal/tmux.js';
import { log } from '../../lib/log.js';
import type { Launch } from './hooks.js';
import { startAgent } from './sessions.js';

/** How an agent's client is started: resuming its session, or new (`why`: said to the person; null: nothing to resume). */
export type StartPlan = { resume: { id: string; args: string[] } } | { fresh: string | null };

/** How long `up` waits for a resumed client to show its input box, or to die of a session it does not have (tests shorten it). */
const RESUME_WAIT_MS = Number(process.env.BATON_RESUME_WAIT_MS) || 20_000;

/** Is `path` a file under one of `folders`? A path outside them (from an agent's note) proves nothing. */
const under = (path: string, folders: readonly string[]): boolean =>
  folders.some((f) => path.startsWith(f.endsWith(sep) ? f : f + sep));

/** How to start `agent`'s client: its session resumed when the conversation has one it can resume. */
export function startPlan(o: {
  agent: Agent;
  command: string;
  state: State | null;
  freshAgents: boolean;
  demo: boolean;
  exists?: (path: string) => boolean;
}): StartPlan {
  const { agent, command, state } = o;
  const session = state?.sessions?.[agent.name];
  const resumeArgs = KINDS[agent.kind].resumeArgs;
  if (o.demo || !session || !resumeArgs) return { fresh: null };
  const id = session.id;
  if (o.freshAgents) return { fresh: `--fresh-agents: its session ${id} is not resumed` };
  if (!isSessionId(id)) return { fresh: 'the session ID its hooks reported is not one its client gives' };
  if (session.kind !== agent.kind)
    return { fresh: `its session ${id} is a ${session.kind} session, not ${agent.kind}` };
  if (session.cwd !== agent.cwd)
    return { fresh: `its session ${id} ran in ${session.cwd}, not in its folder now (${agent.cwd})` };
  if (programName(command) !== agent.kind)
    return { fresh: `"${command}" does not start ${agent.kind} itself, so baton cannot add its resume` };
  const t = session.transcript;
  if (t && under(t, clientFolders(agent)) && !(o.exists ?? existsSync)(t))
    return { fresh: `its client no longer has session ${id} (its file ${t} is gone)` };
  return { resume: { id, args: resumeArgs(id) } };
}

type Resumed = { ok: true } | { ok: false; why: string };

/**
 * Wait until a resumed client shows its input box, or its pane dies (no such session: its last screen says why),
 * up to RESUME_WAIT_MS; a client still starting then is left to come up (the daemon waits for its box anyway).
 */
async function awaitResumed(t: Tmux, agent: Agent, waitMs = RESUME_WAIT_MS): Promise<Resumed> {
  for (const until = Date.now() + waitMs; Date.now() < until; await sleep(250)) {
    const pane = await findPane(t, agent);
    if (!pane) return { ok: false, why: 'its pane is gone' };
    if (pane.dead) {
      const status = await t.run(['display-message', '-p', '-t', pane.id, '#{pane_dead_status}']);
      const lines = ((await capture(t, pane)) ?? []).map((l) => l.trim()).filter((l) => l && !/^Pane is dead/.test(l));
      const said = lines.slice(-2).join(' ').slice(0, 300);
      const code = status.stdout.trim();
      return { ok: false, why: `it exited${code ? ` with status ${code}` : ''}${said ? `: ${said}` : ''}` };
    }
    const screen = await readScreen(t, agent, pane);
    if (screen?.state === 'ready' || screen?.state === 'holding') return { ok: true };
  }
  return { ok: true };
}

/**
 * Before Gemini CLI resumes a session, its chat file is repaired (core/gemini-resume.ts): else its first
 * request after the resume repeats every earlier tool result, which the real API refuses.
 */
async function repairChat(agent: Agent, state: State | null): Promise<void> {
  const t = state?.sessions?.[agent.name]?.transcript;
  if (agent.kind !== 'gemini' || !t || !under(t, clientFolders(agent)) || !existsSync(t)) return;
  try {
    const line = geminiResumeRepair(await readFile(t, 'utf8'));
    if (!line) return;
    await appendFile(t, `${line}\n`);
    log.info(`${agent.name}: its chat file holds each tool result once again (Gemini CLI repeats them at a resume)`);
  } catch (err) {
    log.warn(`${agent.name}: could not check its chat file ${t} before the resume: ${String(err)}`);
  }
}

/** An agent this machine starts, and the command it runs. */
export interface Planned {
  agent: Agent;
  command: string;
}

/**
 * Start the agents' sessions (running ones are left alone), each client resuming its session when there is
 * one; a resume its client refuses is started new, and said. False when a session cannot start at all.
 */
export async function startAgents(
  t: Tmux,
  o: {
    config: Config;
    plan: Planned[];
    launches: Map<string, Launch>;
    state: State | null;
    demo: boolean;
    freshAgents: boolean;
    topic: string | undefined;
    blank: Record<string, string>;
  },
): Promise<boolean> {
  const { config, demo, topic, blank } = o;
  const sessions = await t.sessions();
  const resumed: Array<{ planned: Planned; id: string }> = [];
  for (const planned of o.plan) {
    const { agent } = planned;
    const launch = o.launches.get(agent.name);
    const how = startPlan({ ...planned, state: o.state, freshAgents: o.freshAgents, demo });
    const resume = 'resume' in how ? how.resume.args : undefined;
    // Only a client about to start: a running one writes its chat file itself.
    if (resume && !(sessions.has(agent.session) && (await findPane(t, agent))?.dead === false))
      await repairChat(agent, o.state);
    const r = await startAgent(t, { config, ...planned, launch, sessions, demo, topic, blank, resume });
    if (r === 'failed') return false;
    if (r !== 'started') continue;
    if ('resume' in how) resumed.push({ planned, id: how.resume.id });
    else if (how.fresh) log.info(`${agent.name}: started new: ${how.fresh}`);
  }
  // A client that does not have the session exits at once: started new, and said.
  const outcomes = await Promise.all(resumed.map(async (r) => ({ ...r, got: await awaitResumed(t, r.planned.agent) })));
  for (const { planned, id, got } of outcomes) {
    if (got.ok) continue;
    const { agent } = planned;
    log.warn(`${agent.name}: its client could not resume session ${id} (${got.why}); starting it new`);
    const launch = o.launches.get(agent.name);
    const again = await startAgent(t, { config, ...planned, launch, sessions: await t.sessions(), demo, topic, blank });
    if (again === 'failed') return false;
  }
  return true;
}
