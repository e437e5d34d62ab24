/**
 * Why the machine's daemon does not serve a conversation in its registry, as it wrote in served.json, for
 * `status` to say instead of only "not running". Only the live daemon's word counts: a dead one's says nothing.
 */
import type { Config } from '../../config/config.js';
import { machineDaemon } from './daemon-lock.js';
import { type Entry, entryOf, folderIdOf, keyOf, movedFrom, readRegistry, stateDir } from './registry.js';
import { readServed } from './served.js';

export interface Skipped {
  /** The machine's daemon that skipped it. */
  pid: number;
  problem: string;
}

function skippedWhere(match: (e: Entry) => boolean, dir: string): Skipped | null {
  const daemon = machineDaemon(dir);
  const served = daemon ? readServed(dir) : null;
  if (!daemon || served?.pid !== daemon.pid) return null;
  const keys = new Set(readRegistry(dir).registry.conversations.filter(match).map(keyOf));
  const s = served.skipped.find((x) => keys.has(x.key));
  return s ? { pid: daemon.pid, problem: s.problem } : null;
}

/**
 * This config's conversation, skipped: why, or null (served, not registered, or no machine daemon). Found
 * by its key, or by its message folder's inode when it was added from where the project was before it moved.
 */
export function skippedConversation(config: Config, dir = stateDir()): Skipped | null {
  const key = keyOf(entryOf(config, null));
  const id = folderIdOf(config.messageDir);
  return skippedWhere((e) => keyOf(e) === key || movedFrom(e, id), dir);
}

/** The conversation of a config file that does not load (its entry found by the file), skipped: why, or null. */
export function skippedConfigFile(file: string, dir = stateDir()): Skipped | null {
  return skippedWhere((e) => e.config === file, dir);
}
