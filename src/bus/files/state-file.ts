/** state.json on the files bus: written atomically (temp file, fsync, rename) by the lease holder only. */
import { readFile } from 'node:fs/promises';
import { parseState, StateError, type State } from '../../core/state.js';
import { isErrno, writeAtomic } from '../../lib/fsx.js';

/** The state on disk, or null when there is no state.json yet. Throws StateError when it is corrupt. */
export async function readStateFile(file: string): Promise<State | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return null;
    throw new StateError(`${file}: cannot read (${(err as NodeJS.ErrnoException).code})`);
  }
  return parseState(text, file);
}

export async function writeStateFile(file: string, state: State): Promise<void> {
  const out: State = { ...state, updated_at: new Date().toISOString() };
  await writeAtomic(file, `${JSON.stringify(out, null, 2)}\n`);
}
