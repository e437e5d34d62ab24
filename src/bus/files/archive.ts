/**
 * archive/<id>.json on the files bus: one file per record (core/record.ts says what a record holds).
 * A new record never replaces a file (link(2), not rename(2)): a reused ID would fail loudly.
 */
import { existsSync, readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseId, type IdPrefix } from '../../core/ids.js';
import { amended, isRecordName, type Amendment, type ArchiveRecord } from '../../core/record.js';
import { createAtomic, isErrno, writeAtomic } from '../../lib/fsx.js';
import { namesIn } from '../folders/inbox.js';

const recordPath = (dir: string, id: string): string => join(dir, `${id}.json`);

/** A record as its file holds it. */
const serialize = (r: ArchiveRecord) => `${JSON.stringify(r, null, 2)}\n`;

/** Throws when `id` has a record already: a reused ID is refused before the message is committed, not at its stamp. */
export function refuseTaken(dir: string, id: string): void {
  if (existsSync(recordPath(dir, id))) throw taken(dir, id);
}

const taken = (dir: string, id: string) =>
  new Error(`${recordPath(dir, id)} already exists: refusing to reuse a message ID`);

/** Write a new record, returning its text; a file with that ID is never replaced (it would mean a reused ID). */
export async function archiveNew(dir: string, record: ArchiveRecord): Promise<string> {
  const text = serialize(record);
  if (!(await createAtomic(recordPath(dir, record.id), text))) throw taken(dir, record.id);
  return text;
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
export async function archivedCounters(dir: string, prefix: IdPrefix = 'msg'): Promise<number[]> {
  return (await namesIn(dir))
    .map((n) => (n.endsWith('.json') ? parseId(n.slice(0, -5), prefix) : null))
    .filter((n): n is number => n !== null)
    .sort((a, b) => a - b);
}

/** Every record's ID (agents' and a person's), unsorted. */
export async function recordIds(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  return names.filter(isRecordName).map((n) => n.slice(0, -5));
}

/**
 * The daemon's read of a record it is about to rewrite: synchronous, as its writes are (lib/fsx.ts), so
 * a stamp is not four more round trips through the thread pool.
 */
function readRecordNow(dir: string, id: string): ArchiveRecord | null {
  try {
    return JSON.parse(readFileSync(recordPath(dir, id), 'utf8')) as ArchiveRecord;
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return null;
    throw err;
  }
}

/**
 * The archive as the daemon writes it (the lease holder: its caller checks the lease before each write). A record
 * the turn step commits is held here (state.json holds it on disk: held.ts) until its stamp writes its file once,
 * or until its delivery must wait. It keeps the record it wrote last as its file holds it, until something else
 * may write that file, so a stamp need not read it back: an open, two reads and a close on every delivery.
 */
export class ArchiveWriter {
  private last: { id: string; text: string } | null = null;
  private kept: ArchiveRecord | null = null;

  constructor(private readonly dir: string) {}

  /** The record committed and not archived yet (state.json holds it), if any. */
  get held(): ArchiveRecord | null {
    return this.kept;
  }

  /** A record the turn step has just committed, with state.json holding it. */
  committed(record: ArchiveRecord): void {
    this.kept = record;
  }

  /** The held record archived as it is (unstamped): its delivery waits, and archive/ shows it meanwhile. */
  async settle(): Promise<boolean> {
    if (!this.kept) return false;
    await this.create(this.kept);
    this.kept = null;
    return true;
  }

  private async create(r: ArchiveRecord): Promise<void> {
    this.last = { id: r.id, text: await archiveNew(this.dir, r) };
  }

  /**
   * Stamp a record delivered, once: a record stamped already keeps its stamp (and its redelivered flag);
   * what was added to it meanwhile (a hook's receipt, a turn's tokens) is kept. True when stamped now. The
   * record is not read back when this daemon wrote it last (nothing else can have written it since).
   */
  async stamp(record: ArchiveRecord): Promise<boolean> {
    if (this.kept?.id === record.id) {
      await this.create({ ...this.kept, ...record });
      this.kept = null;
      return true;
    }
    const written = this.last?.id === record.id ? this.last.text : undefined;
    this.last = null; // a stamp that fails may have written the file or not
    const stored = written !== undefined ? (JSON.parse(written) as ArchiveRecord) : readRecordNow(this.dir, record.id);
    if (stored?.delivered_at) return false;
    const text = serialize({ ...stored, ...record });
    await writeAtomic(recordPath(this.dir, record.id), text);
    this.last = { id: record.id, text };
    return true;
  }

  /**
   * Merge daemon-owned fields into a record (a hook's receipt), read back by its next stamp. False: no record.
   * A held record is changed where it is held (its caller writes state.json again).
   */
  async amend(id: string, fields: Amendment): Promise<boolean> {
    if (this.kept?.id === id) {
      this.kept = amended(this.kept, fields);
      return true;
    }
    if (this.last?.id === id) this.last = null;
    const r = readRecordNow(this.dir, id);
    if (!r) return false;
    await writeAtomic(recordPath(this.dir, id), serialize(amended(r, fields)));
    return true;
  }
}
