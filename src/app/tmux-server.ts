/**
 * The tmux server a conversation's sessions run on: `baton up` records the socket its shell reaches; `down` and
 * `status` act on that one, not their caller's (a `down` from another server's pane left every session running).
 */
import { join } from 'node:path';
import type { Config } from '../config/config.js';
import { writeAtomic } from '../lib/fsx.js';
import { readOwnFileSync } from '../lib/own-file.js';
import { Tmux, type TmuxOptions } from '../terminal/tmux.js';

const RECORD = '.tmux-server';

const recordOf = (config: Pick<Config, 'messageDir'>) => join(config.messageDir, RECORD);

/** Record the server `t` reaches (once it has a session): what later commands act on. */
export async function recordServer(config: Pick<Config, 'messageDir'>, t: Tmux): Promise<void> {
  const r = await t.run(['display-message', '-p', '#{socket_path}']);
  const path = r.ok ? r.stdout.trim() : '';
  // Not recorded (no session to ask, a folder not writable): later commands use their caller's server.
  if (path.startsWith('/')) await writeAtomic(recordOf(config), `${path}\n`).catch(() => {});
}

/** The socket path `baton up` recorded, or null (none recorded: a conversation started before it was). */
export function recordedServer(config: Pick<Config, 'messageDir'>): string | null {
  const data = readOwnFileSync(recordOf(config), 4096);
  const path = data?.toString('utf8').trim() ?? '';
  return path.startsWith('/') && !path.includes('\n') ? path : null;
}

/** A Tmux for the server the conversation's sessions run on (the caller's own when none was recorded). */
export function conversationTmux(config: Pick<Config, 'messageDir'>, opts: TmuxOptions = {}): Tmux {
  const socketPath = recordedServer(config) ?? undefined;
  return new Tmux({ ...opts, ...(socketPath ? { socketPath } : {}) });
}
