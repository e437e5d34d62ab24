/**
 * state.json on the files bus: written atomically (temp file, fsync, rename) by the lease holder only. While a
 * committed message is being typed it also holds that message's record, as `delivering` (held.ts says why):
 * the state and the record it commits are one write.
 */
import { readFile } from 'node:fs/promises';
import type { ArchiveRecord } from '../../core/record.js';
import { parseState, StateError, type State } from '../../core/state.js';
import { isErrno, writeAtomic } from '../../lib/fsx.js';

/** What state.json holds: the state, and the record of a message committed and not yet archived. */
export interface Stored {
  state: State;
  delivering: ArchiveRecord | null;
}

/** state.json as stored, or null when there is none yet. Throws StateError when it is corrupt. */
export async function readStored(file: string): Promise<Stored | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return null;
    throw new StateError(`${file}: cannot read (${(err as NodeJS.ErrnoException).code})`);
  }
  const { delivering, ...state } = parseState(text, file) as State & { delivering?: unknown };
  const held = delivering && typeof delivering === 'object' && typeof (delivering as ArchiveRecord).id === 'string';
  return { state: state as State, delivering: held ? (delivering as ArchiveRecord) : null };
}

/** The state on disk, or null when there is no state.json yet. Throws StateError when it is corrupt. */
export const readStateFile = async (file: string): Promise<State | null> => (await readStored(file))?.state ?? null;

export async function writeStateFile(file: string, state: State, delivering: ArchiveRecord | null = null) {
  const out = { ...state, updated_at: new Date().toISOString(), ...(delivering ? { delivering } : {}) };
  await writeAtomic(file, `${JSON.stringify(out, null, 2)}\n`);
}
