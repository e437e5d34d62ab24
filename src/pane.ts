/**
 * Typing a message into an agent's pane (SPEC §5): find the pane, paste the whole text as one bracketed
 * paste through a named buffer, wait, then press Enter on its own. Content never goes through
 * `send-keys` without `-l`, so no word in it can become a key.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Agent } from './config.js';
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
const FORMAT = ['P', '#{pane_id}', '#{pane_dead}', '#{pane_in_mode}', '#{@baton_pane}', '#{session_name}', '#{pane_current_command}', '#{window_activity}', '#{pane_start_command}'].join('\t');

/**
 * The pane behind a target, or null when it does not exist (display-message prints an empty line and
 * exits 0 for a missing target, so the format carries a marker to tell the two apart).
 */
export async function probe(tmux: Tmux, target: string): Promise<PaneInfo | null> {
  const r = await tmux.run(['display-message', '-p', '-t', target, FORMAT]);
  const m = /^P\t(%\d+)\t(\d*)\t(\d*)\t(%\d+|)\t([^\t]*)\t([^\t]*)\t(\d*)\t(.*)$/.exec(r.stdout.split('\n')[0] ?? '');
  if (!r.ok || !m) return null;
  return { id: m[1]!, dead: m[2] === '1', inMode: m[3] === '1', agentPane: m[4]!, session: m[5]!, command: m[6]!, activity: Number(m[7]), startCommand: m[8]! };
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
  if (!pane) return `no pane at ${targetOf(agent)}`;
  if (pane.dead) return `pane ${pane.id} is dead`;
  const knownAgent = agent.kind !== 'shell' && agent.kind !== 'generic';
  if (knownAgent && pane.agentPane !== pane.id && isBareShell(pane)) return `pane ${pane.id} runs a bare shell (${pane.command}), not the agent`;
  return null;
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
  if (pane.inMode) {
    // In copy mode Enter is swallowed while a paste still reaches the program; leave the mode first.
    await tmux.run(['send-keys', '-t', pane.id, '-X', 'cancel']);
  }
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
  const r = await tmux.run(['send-keys', '-t', pane.id, 'Enter']);
  if (!r.ok) throw new PasteError(`Enter into ${pane.id} failed: ${r.timedOut ? 'tmux timed out' : r.stderr || `exit ${r.exitCode}`}`, true);
}
