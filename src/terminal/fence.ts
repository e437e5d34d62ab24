/**
 * Keystrokes that check inside the tmux server that they are still wanted (`if-shell -F`: the check and the key
 * are one step). A daemon paused after a paste once woke after a take-over and pressed Enter into the next
 * message's paste.
 * - the fence: a server option per conversation with the newest lease holder's token (zero-padded);
 * - the pane: an Enter goes only to the pane instance that got the paste, not in copy mode, not dead.
 */
import type { PaneRef } from './pane.js';
import { SKIPPED } from './tmux.js';

export interface TmuxFence {
  /** The server option, `@baton_fence_<key>`. */
  option: string;
  token: string;
}

export const tmuxFence = (f: { key: string; token: string }): TmuxFence => ({
  option: `@baton_fence_${f.key}`,
  token: f.token,
});

/** Why a guarded keystroke was not pressed. */
export type Refusal =
  /** Another daemon holds the conversation now (its token is newer). */
  | 'fenced'
  /** No token on this server (it was restarted, or never told): set it, then try again. */
  | 'unfenced'
  /** The pane is another one now (another server, another process in that id), or gone. */
  | 'moved'
  | 'dead'
  /** Someone is scrolling it: an Enter would be swallowed. */
  | 'copy_mode';

const and = (...conds: string[]): string => conds.reduce((acc, c) => `#{&&:${acc},${c}}`);

/** The fence's own condition: this token is the newest this server has. */
const fenceOk = (f: TmuxFence | null): string => (f ? `#{==:#{${f.option}},${f.token}}` : '1');

/** Keys for `pane` are wanted: the fence holds, it is the same instance, alive, not in a mode. */
export function guard(f: TmuxFence | null, pane: PaneRef): string {
  return and(
    fenceOk(f),
    `#{==:#{pid}:#{start_time},${pane.server}}`,
    `#{==:#{pane_pid},${pane.pid}}`,
    '#{==:#{pane_dead},0}',
    '#{==:#{pane_in_mode},0}',
  );
}

/** What the refusing branch prints: enough to tell why. */
export function skipReport(f: TmuxFence | null): string {
  return `display-message -p '${SKIPPED}\t#{pid}:#{start_time}\t#{pane_pid}\t#{pane_dead}\t#{pane_in_mode}\t${f ? `#{${f.option}}` : ''}'`;
}

export function refusal(output: string, f: TmuxFence | null, pane: PaneRef): Refusal {
  const [, server = '', pid = '', dead = '', mode = '', token = ''] = output.split('\t');
  if (f && token !== f.token) return token === '' ? 'unfenced' : 'fenced';
  if (server !== pane.server || Number(pid) !== pane.pid) return 'moved';
  if (dead === '1') return 'dead';
  if (mode === '1') return 'copy_mode';
  return 'moved';
}

/** Set the token unless the server has a newer one (then this daemon is fenced). */
export function raiseFence(f: TmuxFence): { condition: string; command: string } {
  return {
    condition: `#{||:#{==:#{${f.option}},},#{<:#{${f.option}},${f.token}}}`,
    command: `set-option -s ${f.option} ${f.token}`,
  };
}
