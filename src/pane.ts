/**
 * Typing a message into an agent's pane (SPEC §5): find the pane, paste the whole text as one bracketed
 * paste through a named buffer, wait, then press Enter on its own. Content never goes through
 * `send-keys` without `-l`, so no word in it can become a key.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Agent } from './config.js';
import { isOurPaste, KINDS, readDemoScreen, screenProblem, type Screen } from './kinds.js';
import { programName } from './program.js';
import type { Tmux } from './tmux.js';

export interface PaneInfo {
  id: string;
  session: string;
  dead: boolean;
  inMode: boolean;
  command: string;
  /** The pane `baton up` started the agent in (session option @baton_pane), if any. */
  agentPane: string;
  /** Runs the bundled demo agent (`baton up --demo`), whatever kind the config names: no screen to read. */
  demo: boolean;
  /** Last output in the pane's window (epoch seconds; tmux keeps activity per window). */
  activity: number;
  /** What the pane was started with; empty for a plain interactive shell pane. */
  startCommand: string;
}

/** The tmux target of an agent: its configured pane, or its session matched exactly. */
export function targetOf(agent: Pick<Agent, 'target' | 'session'>): string {
  return agent.target ?? `=${agent.session}:`;
}

// Tab-separated; the start command (which may contain anything) comes last.
const FORMAT = ['P', '#{pane_id}', '#{pane_dead}', '#{pane_in_mode}', '#{@baton_pane}', '#{session_name}', '#{pane_current_command}', '#{window_activity}', '#{@baton_demo}', '#{pane_start_command}'].join('\t');

/**
 * The pane behind a target, or null when it does not exist (display-message prints an empty line and
 * exits 0 for a missing target, so the format carries a marker to tell the two apart).
 */
export async function probe(tmux: Tmux, target: string): Promise<PaneInfo | null> {
  const r = await tmux.run(['display-message', '-p', '-t', target, FORMAT]);
  const m = /^P\t(%\d+)\t(\d*)\t(\d*)\t(%\d+|)\t([^\t]*)\t([^\t]*)\t(\d*)\t(1?)\t(.*)$/.exec(r.stdout.split('\n')[0] ?? '');
  if (!r.ok || !m) return null;
  return { id: m[1]!, dead: m[2] === '1', inMode: m[3] === '1', agentPane: m[4]!, session: m[5]!, command: m[6]!, activity: Number(m[7]), demo: m[8] === '1', startCommand: m[9]! };
}

/**
 * The agent's pane. A session target means the pane `baton up` started the agent in (so a pane a
 * person split off beside it never receives messages), else the session's active pane.
 */
export async function findPane(tmux: Tmux, agent: Pick<Agent, 'target' | 'session'>): Promise<PaneInfo | null> {
  const found = await probe(tmux, targetOf(agent));
  if (!found || agent.target || !found.agentPane || found.agentPane === found.id) return found;
  const pinned = await probe(tmux, found.agentPane);
  return pinned && pinned.session === agent.session ? pinned : null;
}

/** Programs that mean "the agent is gone and a shell is in its place": typed text would run as commands. */
export const SHELLS = new Set(['bash', 'sh', 'dash', 'zsh', 'fish', 'ksh', 'mksh', 'tcsh', 'csh', 'ash', 'busybox', 'login']);

/**
 * A shell waiting for commands where an agent should be: the pane was started as a shell (a person's
 * interactive pane, where they ran the agent by hand) and a shell is in the foreground again. A shell
 * wrapping a started program (`agent > log 2>&1`) is not this: its pane was started with that program.
 */
export function isBareShell(pane: PaneInfo): boolean {
  return SHELLS.has(pane.command) && (pane.startCommand === '' || SHELLS.has(programName(pane.startCommand)));
}

/**
 * Why text must not be typed into this agent's pane now, or null when it may. A known agent CLI replaced
 * by a shell would run the text as commands. A pane `baton up` started runs the agent itself, so when
 * the agent exits the pane is dead, not a shell; the shell check is for panes a person started (targets,
 * or their own session). Generic programs may legitimately be shell scripts, so only known kinds count.
 */
export function whyNotTypable(agent: Pick<Agent, 'kind' | 'target' | 'session'>, pane: PaneInfo | null): string | null {
  if (!pane) return agent.target ? `there is no pane ${agent.target}` : `there is no tmux session "${agent.session}"`;
  if (pane.dead) return `pane ${pane.id} is dead`;
  if (KINDS[agent.kind].agentCli && pane.agentPane !== pane.id && isBareShell(pane)) return `pane ${pane.id} runs a bare shell (${pane.command}), not the agent`;
  // In copy mode Enter is swallowed while a paste still reaches the program; a person is scrolling.
  if (pane.inMode) return `pane ${pane.id} is in copy mode (someone is scrolling it)`;
  return null;
}

/** The pane's visible screen, one string per line; null when it cannot be read. */
export async function capture(tmux: Tmux, pane: PaneInfo): Promise<string[] | null> {
  const r = await tmux.run(['capture-pane', '-p', '-t', pane.id]);
  return r.ok ? r.stdout.split('\n') : null;
}

/** The screen as the agent's kind reads it; null when the kind's screen is not known (or unreadable). */
export async function readScreen(tmux: Tmux, agent: Pick<Agent, 'kind'>, pane: PaneInfo): Promise<Screen | null> {
  const read = pane.demo ? readDemoScreen : KINDS[agent.kind].readScreen;
  if (!read) return null;
  const lines = await capture(tmux, pane);
  return lines ? read(lines) : { state: 'unknown', detail: 'capture-pane failed' };
}

/**
 * The readiness gate: why a message must wait now, or null when it may be typed. On top of
 * whyNotTypable, a kind whose screen baton can read must show its input box, empty (no dialog, no
 * text a person is typing, nothing unrecognised).
 */
export async function whyNotReady(tmux: Tmux, agent: Pick<Agent, 'kind' | 'target' | 'session'>, pane: PaneInfo | null): Promise<{ reason: string; screen?: Screen } | null> {
  const reason = whyNotTypable(agent, pane);
  if (reason || !pane) return { reason: reason ?? 'no pane' };
  const screen = await readScreen(tmux, agent, pane);
  const problem = screen && screenProblem(screen);
  return problem ? { reason: `pane ${pane.id}: ${problem}`, screen: screen! } : null;
}

/**
 * Kinds whose screen is read: wait until the input box shows the paste. Only then does an empty box after
 * Enter mean "submitted" — read too early, the box still looks empty because the paste is not drawn yet
 * (seen with the real Claude Code at enter_delay_ms 0). True at once for kinds whose screen is not read.
 */
export async function pasteShown(tmux: Tmux, agent: Pick<Agent, 'kind'>, pane: PaneInfo, boundMs = 1500): Promise<boolean> {
  if (!KINDS[agent.kind].readScreen || pane.demo) return true;
  for (const until = performance.now() + boundMs; performance.now() < until; await sleep(25)) {
    if ((await readScreen(tmux, agent, pane))?.state === 'holding') return true;
  }
  return false;
}

/**
 * Paste, see it in the box, press Enter `delayMs` after the paste, confirm: baton's own notices and a
 * person's messages. Throws PasteError when any step fails.
 */
export async function typeText(tmux: Tmux, agent: Pick<Agent, 'kind'>, pane: PaneInfo, text: string, delayMs: number): Promise<Confirmation> {
  const at = await paste(tmux, pane, text);
  if (!(await pasteShown(tmux, agent, pane))) throw new PasteError(`the paste never showed in ${pane.id}'s input box`, true);
  await submit(tmux, pane, Math.max(0, delayMs - (performance.now() - at)));
  return confirmSubmit(tmux, agent, pane, text.slice(0, 40));
}

/** How a submit was confirmed, recorded in the archive. */
export type Confirmation = 'screen' | 'screen_after_second_enter' | 'not_checked';

/**
 * After Enter: watch the screen (kinds that can be read) until the input box is empty. Still holding
 * text after `boundMs`: one more Enter (never caused a double submit in measurements), and watch again.
 * Throws PasteError when it is still not submitted, or the screen turned into something else.
 */
export async function confirmSubmit(tmux: Tmux, agent: Pick<Agent, 'kind'>, pane: PaneInfo, ours: string, boundMs = 1500): Promise<Confirmation> {
  if (!KINDS[agent.kind].readScreen || pane.demo) return 'not_checked';
  for (const attempt of [1, 2]) {
    let last: Screen | null = null;
    for (const until = performance.now() + boundMs; performance.now() < until; await sleep(100)) {
      last = await readScreen(tmux, agent, pane);
      if (last?.state === 'ready') return attempt === 1 ? 'screen' : 'screen_after_second_enter';
    }
    if (last?.state !== 'holding') throw new PasteError(`not confirmed: ${last ? screenProblem(last) : 'screen unreadable'}`, true);
    // Enter again only on our own text: what a person typed meanwhile is never submitted by baton.
    if (!isOurPaste(last.input, ours)) throw new PasteError(`not confirmed: ${screenProblem(last)}`, true);
    if (attempt === 1) await pressEnter(tmux, pane);
  }
  throw new PasteError(`not submitted: the text is still in ${pane.id}'s input box after a second Enter`, true);
}

async function pressEnter(tmux: Tmux, pane: PaneInfo): Promise<void> {
  const r = await tmux.run(['send-keys', '-t', pane.id, 'Enter']);
  if (!r.ok) throw new PasteError(`Enter into ${pane.id} failed: ${r.timedOut ? 'tmux timed out' : r.stderr || `exit ${r.exitCode}`}`, true);
}

export class PasteError extends Error {
  constructor(
    message: string,
    /** True when the text may have reached the pane (tmux timed out mid-paste). */
    readonly maybeTyped: boolean,
  ) {
    super(message);
  }
}

let bufferSeq = 0;

/** Paste `text` as one unit. Resolves with performance.now() when the paste was done. */
export async function paste(tmux: Tmux, pane: PaneInfo, text: string): Promise<number> {
  const buffer = `baton-${process.pid}-${++bufferSeq}`;
  // -p: bracketed, when the program asked for it; -r: newlines stay LF, so the text arrives byte for
  // byte and a program without bracketed paste does not take each line break as Enter.
  const r = await tmux.pasteText(buffer, text, pane.id, ['-p', '-r']);
  const at = performance.now();
  if (!r.ok) {
    await tmux.run(['delete-buffer', '-b', buffer]);
    throw new PasteError(`paste into ${pane.id} failed: ${r.timedOut ? 'tmux timed out' : r.stderr || `exit ${r.exitCode}`}`, r.timedOut);
  }
  return at;
}

/** Press Enter, after `delayMs` (agent TUIs take a fast Enter as part of the paste). */
export async function submit(tmux: Tmux, pane: PaneInfo, delayMs: number): Promise<void> {
  if (delayMs > 0) await sleep(delayMs);
  await pressEnter(tmux, pane);
}

/** The pause before Enter: the config's, else the agent kind's. */
export function enterDelay(agent: Pick<Agent, 'kind'>, configured: number | undefined): number {
  return configured ?? KINDS[agent.kind].enterDelayMs;
}
