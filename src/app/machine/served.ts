/**
 * What the machine's daemon serves now (`served.json`, written when it changes), and what it skipped and why:
 * the registry says what should be served, this what is — for `ls` to say why one is skipped, and for a `down`
 * with no bus to ask (a config that does not load) to see the daemon let go.
 */
import { join } from 'node:path';
import { readRecord } from '../../config/run-record.js';
import { writeAtomic } from '../../lib/fsx.js';
import { type Entry, isEntry } from './registry.js';

export interface Served {
  pid: number;
  /** Keys (registry.ts keyOf) of the conversations it serves. */
  serving: string[];
  skipped: { key: string; problem: string }[];
  /**
   * The registry's entries of those it serves and skipped, as it took them on: while the registry does not
   * read (registry.ts), `baton ls` lists these — what runs — instead of nothing. Absent from older daemons.
   */
  entries?: Entry[];
  updated_at: string;
}

const servedPath = (dir: string) => join(dir, 'served.json');

export function readServed(dir: string): Served | null {
  const valid = (s: Served) => typeof s.pid === 'number' && Array.isArray(s.serving) && Array.isArray(s.skipped);
  const s = readRecord<Served>(servedPath(dir), valid);
  return s && { ...s, entries: Array.isArray(s.entries) ? s.entries.filter(isEntry) : [] };
}

/** Writes only what changed since the last call of this writer. */
export function servedWriter(dir: string): (s: Omit<Served, 'updated_at'>) => Promise<void> {
  let last = '';
  return async (s) => {
    const text = JSON.stringify(s);
    if (text === last) return;
    last = text;
    await writeAtomic(servedPath(dir), `${JSON.stringify({ ...s, updated_at: new Date().toISOString() }, null, 2)}\n`);
  };
}
