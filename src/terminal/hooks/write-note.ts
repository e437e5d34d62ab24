/**
 * Writing one hook note (spool.ts says where and why). Kept apart and free of every import but node's
 * own, because `baton hook` runs on the agent's critical path: before each prompt reaches the model.
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { HookNote } from '../../core/hook-note.js';

let seq = 0;

/**
 * Leave one note, whole or not at all (synchronous: the hook process does nothing else). Its temp file is
 * created new (`wx`): a name taken already — a link someone left there — fails instead of writing through it.
 */
export function writeNote(dir: string, note: HookNote): string {
  const name = `${String(Date.now()).padStart(15, '0')}-${process.pid}-${seq++}-${note.event}.json`;
  const tmp = join(dir, `.${name}.tmp`);
  try {
    writeFileSync(tmp, JSON.stringify(note), { flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    // The message folder, .hooks/ and the spool only: a recursive mkdir can spin for ever on some paths (/proc).
    for (const d of [dirname(dirname(dir)), dirname(dir), dir]) {
      try {
        mkdirSync(d);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
    }
    writeFileSync(tmp, JSON.stringify(note), { flag: 'wx' });
  }
  renameSync(tmp, join(dir, name));
  return name;
}
