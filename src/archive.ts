/**
 * archive/<id>.json: every delivered message, enriched with its ID, reply_to and times. The archive is
 * the record of the conversation: state.json can be rebuilt from it, never the other way round.
 *
 * A record is written with `delivered_at: null` before its text is typed and rewritten with the time
 * once paste and Enter are done, so a record without `delivered_at` marks a delivery that was cut short.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createAtomic, isErrno, writeAtomic } from './fsx.js';
import type { Message } from './message.js';
import { parseId } from './turns.js';

export type ArchiveRecord = Message & {
  id: string;
  reply_to: string | null;
  sender: string;
  receiver: string;
  /** The direction folder and file name the message came from. */
  direction: string;
  source_file: string;
  received_at: string;
  delivered_at: string | null;
  /** Set when the text was typed again after a crash that may have come after the first paste. */
  redelivered?: boolean;
  /** How the submit was confirmed: on screen, on screen after a second Enter, or not checked (kinds.ts). */
  confirmed?: 'screen' | 'screen_after_second_enter' | 'not_checked';
  /** A person's topic that opened the holder's turn (`baton start`, `baton up --topic`). */
  kickoff?: boolean;
};

export function recordPath(dir: string, id: string): string {
  return join(dir, `${id}.json`);
}

const serialize = (r: ArchiveRecord) => `${JSON.stringify(r, null, 2)}\n`;

/** Write a new record; an existing file with that ID is never replaced (it would mean a reused ID). */
export async function archiveNew(dir: string, record: ArchiveRecord): Promise<void> {
  if (!(await createAtomic(recordPath(dir, record.id), serialize(record)))) {
    throw new Error(`${recordPath(dir, record.id)} already exists: refusing to reuse a message ID`);
  }
}

/** Rewrite an existing record (to stamp `delivered_at`). */
export async function archiveUpdate(dir: string, record: ArchiveRecord): Promise<void> {
  await writeAtomic(recordPath(dir, record.id), serialize(record));
}

export async function readRecord(dir: string, id: string): Promise<ArchiveRecord | null> {
  try {
    return JSON.parse(await readFile(recordPath(dir, id), 'utf8')) as ArchiveRecord;
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return null;
    throw err;
  }
}

/** Counters of all `<prefix>_NNNN.json` records (agent messages by default; `user` for a person's), ascending. */
export async function archivedCounters(dir: string, prefix = 'msg'): Promise<number[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return [];
    throw err;
  }
  return names
    .map((n) => (n.endsWith('.json') ? parseId(n.slice(0, -5), prefix) : null))
    .filter((n): n is number => n !== null)
    .sort((a, b) => a - b);
}

/** An archive file name: `msg_NNNN.json` (an agent's message) or `user_NNNN.json` (a person's). */
export const isRecordName = (n: string): boolean =>
  n.endsWith('.json') && (parseId(n.slice(0, -5)) !== null || parseId(n.slice(0, -5), 'user') !== null);

const when = (r: Pick<ArchiveRecord, 'delivered_at' | 'received_at'>) => r.delivered_at ?? r.received_at;
/** The order records reached the panes: delivery time first (a person's messages fall between turns), then counter. */
export const byDelivery = (a: Pick<ArchiveRecord, 'id' | 'delivered_at' | 'received_at'>, b: Pick<ArchiveRecord, 'id' | 'delivered_at' | 'received_at'>): number =>
  when(a) < when(b) ? -1 : when(a) > when(b) ? 1 : (parseId(a.id) ?? 0) - (parseId(b.id) ?? 0);
