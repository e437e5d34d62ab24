/**
 * Has a program whose screen baton does not parse drawn a paste? Yes once the paste's last characters are on
 * the cursor's line (capture-pane -J, the cursor's row and two above, white space squeezed): a program that
 * echoes has read the paste to its end. Anything else gets the kind's enterDelayMs, never a guess; a changed
 * screen or moved cursor only says the paste's start was read. docs/decisions/0001-enter-after-the-paste-shows.md.
 */
import type { Tmux } from './tmux.js';

/** How much of the last line must show: enough not to be a prompt's own text, short enough to fit a narrow pane. */
const TAIL = 32;

const squeeze = (s: string): string => s.replace(/\s+/g, ' ').trim();

/** What the screen must show of a pasted text: the end of its last line. */
export function tailOf(text: string): string {
  return squeeze(text.slice(text.lastIndexOf('\n') + 1))
    .slice(-TAIL)
    .trim();
}

const CURSOR_FORMAT = '#{cursor_y}\t#{bracket_paste_flag}\t#{@baton_paste}';
/**
 * Does the cursor's line show `tail` now? Null when tmux cannot say the program uses bracketed paste
 * (`bracket_paste_flag`, tmux ≥ 3.7; else the tracker's `@baton_paste`): without it a paste is no one unit
 * whose end the screen could show.
 */
export async function echoed(tmux: Pick<Tmux, 'run'>, paneId: string, tail: string): Promise<boolean | null> {
  const at = await tmux.run(['display-message', '-p', '-t', paneId, CURSOR_FORMAT]);
  const m = /^(\d+)\t([01]?)\t(on|off|)$/.exec(at.stdout.split('\n')[0] ?? '');
  const bracketed = m?.[2] ? m[2] === '1' : m?.[3] ? m[3] === 'on' : null;
  if (!at.ok || !m || bracketed !== true || !tail) return null;
  const y = Number(m[1]);
  const top = String(Math.max(0, y - 2));
  const rows = await tmux.run(['capture-pane', '-p', '-J', '-t', paneId, '-S', top, '-E', `${y}`]);
  // Both engines give the rows without a final line break: the last line is the cursor's row, blank or not.
  return rows.ok && squeeze(rows.stdout.split('\n').at(-1) ?? '').includes(tail);
}
