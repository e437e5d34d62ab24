/** Why the machine's daemon skipped a conversation (served.json), for `status`: only a live daemon's word counts. */
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

/** This config's conversation, skipped: why, or null; found by its key, or its folder's inode (moved since). */
export function skippedConversation(config: Config, dir = stateDir()): Skipped | null {
  const key = keyOf(entryOf(config, null));
  const id = folderIdOf(config.messageDir);
  return skippedWhere((e) => keyOf(e) === key || movedFrom(e, id), dir);
}

/** The conversation of a config file that does not load (its entry found by the file), skipped: why, or null. */
export function skippedConfigFile(file: string, dir = stateDir()): Skipped | null {
  return skippedWhere((e) => e.config === file, dir);
}
