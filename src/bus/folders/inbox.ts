/**
 * Reading one file from a direction folder without trusting it: never follow a symlink, never open a
 * FIFO or device, never read more than max_bytes, and tell "bad for good" apart from "not finished yet".
 */
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, type Stats } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Direction } from '../../config/config.js';
import { jsonPrefix, type JsonTop } from '../../core/json-prefix.js';
import { notAnObject, validateMessage, type Message } from '../../core/message.js';
import type { Waiting } from '../bus.js';
import { isErrno } from '../../lib/fsx.js';
import { byName, type Entries } from './entries.js';
import type { StatCache } from '../../lib/stat-cache.js';

/** Names the daemon looks at: `*.json`, but not dot-files or editor/temp leftovers (docs/protocol.md §3). */
export function isCandidateName(name: string): boolean {
  return name.endsWith('.json') && !name.startsWith('.') && !name.endsWith('.tmp') && !name.endsWith('~');
}

export interface Listing {
  /** Candidate names, in the order they are taken (by name). */
  names: string[];
  /** Names that are not valid UTF-8: unreachable through a string path, so handled as raw bytes. */
  undecodable: Buffer[];
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** The names in `dir`; none when it is not there. */
export async function namesIn(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return [];
    throw err;
  }
}

export async function listInbox(dir: string): Promise<Listing> {
  let raw: Buffer[];
  try {
    raw = await readdir(dir, { encoding: 'buffer' });
  } catch (err) {
    if (isErrno(err, 'ENOENT', 'ENOTDIR')) return { names: [], undecodable: [] };
    throw err;
  }
  const names: string[] = [];
  const undecodable: Buffer[] = [];
  for (const b of raw) {
    let name: string;
    try {
      name = strictUtf8.decode(b);
    } catch {
      // Only a would-be message name is rejected; a dot-file or temp file with a bad byte is left alone.
      if (isCandidateName(b.toString('utf8'))) undecodable.push(b);
      continue;
    }
    if (isCandidateName(name)) names.push(name);
  }
  return { names: names.sort(byName), undecodable };
}

/** How many message files wait in each of these direction folders (status: not taken yet, or not relayed). */
export async function waitingIn(directions: readonly Direction[]): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const d of directions) counts[d.name] = (await listInbox(d.dir)).names.length;
  return counts;
}

export type Examined =
  /** The file vanished (another process took or removed it). */
  | { kind: 'gone' }
  /** Can never become valid: reject now. */
  | { kind: 'bad'; reason: string }
  /**
   * Not valid yet, but a writer at work could make it so (the start of a JSON object): rejected once unchanged
   * for settle_ms. `ino`: the file looked at (its move is checked against it, aside.ts).
   */
  | { kind: 'unsettled'; sig: string; reason: string; ino: number }
  | { kind: 'valid'; sig: string; digest: string; message: Message };

/** A file to examine, and what an earlier look found. */
export interface ToExamine {
  dir: string;
  name: string;
  route: { from: string; to: string };
  maxBytes: number;
  /** An earlier valid result: returned as is for the same bytes (by digest), not parsed and validated twice. */
  known?: Extract<Examined, { kind: 'valid' }> | null;
}

/** Read and check one inbox file, safely: no link followed, no FIFO opened, never over max_bytes + 1 read. */
export async function examine(o: ToExamine): Promise<Examined> {
  const { route, maxBytes, known = null } = o;
  const path = join(o.dir, o.name);
  // Synchronous calls: a message file is small and local, and each async call here was a round trip
  // through libuv's thread pool (0.27 ms for this function's five calls against 0.01 ms, measured on
  // the 2-core machine) on every message's path — twice on the PostgreSQL bus (examined, then claimed).
  let fd: number | null = null;
  try {
    const st = lstatSync(path);
    const bad = (reason: string): Examined => ({ kind: 'bad', reason });
    if (st.isSymbolicLink()) return bad('a symbolic link (never followed)');
    if (!st.isFile()) return bad(`not a regular file (${fileType(st)})`);
    if (st.size > maxBytes) return bad(`${st.size} bytes is over inbox.max_bytes (${maxBytes})`);
    // O_NOFOLLOW and O_NONBLOCK close the race where the name is swapped for a link or FIFO after lstat.
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    const fst = fstatSync(fd);
    if (!fst.isFile() || fst.ino !== st.ino)
      return { kind: 'unsettled', sig: 'swapped', reason: 'the file changed while being read', ino: fst.ino };
    if (fst.size > maxBytes) return bad(`${fst.size} bytes is over inbox.max_bytes (${maxBytes})`);
    // Never more than max_bytes + 1, even if the file grows while we read it.
    const buf = Buffer.alloc(Math.min(fst.size, maxBytes) + 1);
    let len = 0;
    while (len < buf.length) {
      const bytesRead = readSync(fd, buf, len, buf.length - len, len);
      if (bytesRead === 0) break;
      len += bytesRead;
    }
    if (len > maxBytes) return bad(`over inbox.max_bytes (${maxBytes}) while being read`);
    if (len === buf.length)
      return { kind: 'unsettled', sig: `growing:${len}`, reason: 'the file grew while being read', ino: fst.ino };
    const bytes = buf.subarray(0, len);
    const sig = `${fst.ino}:${bytes.length}:${fst.mtimeMs}`;
    const digest = createHash('sha256').update(bytes).digest('base64');
    if (known?.digest === digest) return { ...known, sig };
    // Not a message (yet): it waits settle_ms only if a writer still at work could make it one.
    const invalid = (reason: string): Examined => {
      const never = neverMessage(bytes);
      return never === null ? { kind: 'unsettled', sig, reason, ino: fst.ino } : bad(never || reason);
    };
    let text: string;
    try {
      text = strictUtf8.decode(bytes);
    } catch {
      return invalid('not valid UTF-8');
    }
    let value: unknown;
    try {
      value = JSON.parse(text.startsWith('\uFEFF') ? text.slice(1) : text);
    } catch (err) {
      const why = err instanceof RangeError ? 'nested too deeply' : (err as Error).message;
      return invalid(bytes.length === 0 ? 'empty file' : `invalid JSON: ${why}`);
    }
    // A whole JSON text: a byte appended could only break it, so a schema error is final.
    const checked = validateMessage(value, route);
    if (!checked.ok) return bad(checked.reason);
    try {
      JSON.stringify(checked.message); // the archive must be able to hold it
    } catch {
      return bad('data is nested too deeply to archive');
    }
    return { kind: 'valid', sig, digest, message: checked.message };
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return { kind: 'gone' };
    if (isErrno(err, 'ELOOP')) return { kind: 'bad', reason: 'a symbolic link (never followed)' };
    if (isErrno(err, 'EACCES', 'EPERM'))
      return { kind: 'bad', reason: `cannot read it (${(err as NodeJS.ErrnoException).code})` };
    throw err;
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

/**
 * Why bytes that are no message can never become one, or null when they still may: a writer in place leaves
 * only a prefix of its final bytes, so only the start of a JSON object (or nothing yet: whitespace, part of a
 * BOM) may. Garbage, a syntax error, anything after a whole value or broken UTF-8 never can ('': the parser's
 * reason stands); nor can the start of an array, string, number or literal, which gets its whole text's reason
 * (the fuzz test saw a half-written array rejected as "invalid JSON").
 */
function neverMessage(bytes: Buffer): string | null {
  // The decoder drops one leading BOM and examine() one more: skip the decoder's, the scan allows the other.
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  const p = jsonPrefix(bom ? bytes.subarray(3) : bytes);
  if (p.kind === 'partial' && (p.top === null || p.top === 'object')) return null;
  if (p.kind !== 'partial' || p.top === null) return '';
  // A literal begun is `null` or a boolean: its first letter, past the BOMs and whitespace, says which.
  const literal = /^(?:\xEF\xBB\xBF)*\s*n/.test(bytes.toString('latin1')) ? 'null' : 'boolean';
  const what: Record<JsonTop, string> = { object: '', array: 'an array', string: 'string', number: 'number', literal };
  return notAnObject(what[p.top]);
}

function fileType(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  return 'unknown type';
}

/** What the intake knows about one file in a direction folder: a Waiting, with how it was examined. */
export interface Entry extends Waiting {
  result: Examined | null;
  /** For unsettled files: when the current content (sig) was first seen. */
  unchangedSince: number;
}

/** A direction folder and the files tracked in it. */
export interface Folder {
  direction: Direction;
  /** By name, kept in name order (entries.ts). */
  entries: Entries<Entry>;
  dirty: Set<string>;
  /**
   * Names this daemon moved out of the folder itself (a claim), with when (performance.now()): the watcher's
   * next event for such a name is that move, not a hint (folder-watch.ts).
   */
  taken: Map<string, number>;
  /** Names found by a rescan that are not valid UTF-8 (rejected by the next look). */
  undecodable: Buffer[];
  /** The folder's inode when last listed: a new one means it was replaced and must be watched again. */
  ino?: number;
  /** Its last listing: read again only when the folder changed (lib/stat-cache.ts). */
  listing: StatCache<Listing>;
}
