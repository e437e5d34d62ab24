/**
 * Typing a message into an agent's pane (SPEC §5): find the pane, paste the whole text as one bracketed
 * paste through a named buffer, wait, then press Enter on its own. Content never goes through
 * `send-keys` without `-l`, so no word in it can become a key.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Agent } from './config.js';
import type { Tmux } from './tmux.js';

export interface PaneInfo {
  id: string;
  dead: boolean;
  command: string;
  inMode: boolean;
}

/** The tmux target of an agent: its configured pane, or its session matched exactly. */
export function targetOf(agent: Pick<Agent, 'target' | 'session'>): string {
  return agent.target ?? `=${agent.session}:`;
}

/**
 * The pane behind a target, or null when it does not exist (display-message prints an empty line and
 * exits 0 for a missing target, so the format carries a marker to tell the two apart).
 */
export async function probe(tmux: Tmux, target: string): Promise<PaneInfo | null> {
  const r = await tmux.run(['display-message', '-p', '-t', target, 'P|#{pane_id}|#{pane_dead}|#{pane_in_mode}|#{pane_current_command}']);
  const m = /^P\|(%\d+)\|(\d*)\|(\d*)\|(.*)$/.exec(r.stdout.split('\n')[0] ?? '');
  if (!r.ok || !m) return null;
  return { id: m[1]!, dead: m[2] === '1', inMode: m[3] === '1', command: m[4] ?? '' };
}

export class PasteError extends Error {
  constructor(
    message: string,
    /** True when the text may have reached the pane (a timeout, or a failure after the paste). */
    readonly maybeTyped: boolean,
  ) {
    super(message);
  }
}

export interface TypeResult {
  /** performance.now() when the paste command returned. */
  pastedAt: number;
}

let bufferSeq = 0;

export async function typeInto(
  tmux: Tmux,
  pane: PaneInfo,
  text: string,
  opts: { enterDelayMs: number },
): Promise<TypeResult> {
  if (pane.inMode) {
    // In copy mode Enter is swallowed while a paste still reaches the program; leave the mode first.
    await tmux.run(['send-keys', '-t', pane.id, '-X', 'cancel']);
  }
  const buffer = `baton-${process.pid}-${++bufferSeq}`;
  // One tmux client for both steps: the buffer is loaded from stdin (any size, any bytes) and pasted
  // with -p (bracketed, when the program asked for it) and -d (deleted afterwards).
  const pasted = await tmux.run(['load-buffer', '-b', buffer, '-', ';', 'paste-buffer', '-p', '-d', '-b', buffer, '-t', pane.id], { input: text });
  const pastedAt = performance.now();
  if (!pasted.ok) {
    await tmux.run(['delete-buffer', '-b', buffer]);
    throw new PasteError(`paste into ${pane.id} failed: ${pasted.timedOut ? 'tmux timed out' : pasted.stderr || `exit ${pasted.exitCode}`}`, pasted.timedOut);
  }
  if (opts.enterDelayMs > 0) await sleep(opts.enterDelayMs);
  let enter = await tmux.run(['send-keys', '-t', pane.id, 'Enter']);
  if (!enter.ok) enter = await tmux.run(['send-keys', '-t', pane.id, 'Enter']);
  if (!enter.ok) throw new PasteError(`Enter into ${pane.id} failed: ${enter.stderr || `exit ${enter.exitCode}`}`, true);
  return { pastedAt };
}
