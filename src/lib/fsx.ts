/**
 * File-system helpers with baton's guarantees: a reader sees a whole file or the old one (temp file, fsync,
 * rename), a created file never replaces another. Small local calls are synchronous, only the fsync runs off the
 * loop: a delivery's three writes were 15 thread-pool round trips. docs/decisions/0003-few-syscalls-per-message.md.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fsync,
  linkSync,
  mkdirSync,
  openSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { lstat, mkdir, readdir, rename, unlink, link } from 'node:fs/promises';
import { promisify } from 'node:util';
import { dirname, isAbsolute, join, relative } from 'node:path';

/**
 * Dot-name ending in .tmp: never read by the daemon, short whatever the target's length. Unique by a counter from
 * a random start (randomBytes and getpid per write were 2% of the daemon's busy time); a leftover of an earlier
 * process with the same pid and name only fails that one write (O_EXCL; unlikely with 2^48 names).
 */
const tmpPrefix = `.baton-${process.pid}-`;
let tmpCounter = randomBytes(6).readUIntBE(0, 6);
export const tmpName = (file: string) => {
  tmpCounter = (tmpCounter + 1) % 2 ** 48;
  return join(dirname(file), `${tmpPrefix}${tmpCounter.toString(16).padStart(12, '0')}.tmp`);
};

/** Our own temp files left by a killed process: `.baton-<pid>-<hex>.tmp`. */
export const isOurTemp = (name: string): boolean => /^\.baton-\d+-[0-9a-f]{12}\.tmp$/.test(name);

const fsyncAsync = promisify(fsync);

async function writeSynced(path: string, data: string | Uint8Array): Promise<void> {
  const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644);
  try {
    writeFileSync(fd, data);
    await fsyncAsync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Replace `file` atomically: readers see the old content or the new, never a part. */
export async function writeAtomic(file: string, data: string | Uint8Array): Promise<void> {
  const tmp = tmpName(file);
  try {
    await writeSynced(tmp, data);
    renameSync(tmp, file);
  } catch (err) {
    unlinkQuietly(tmp);
    throw err;
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    /* never made, or gone */
  }
}

/** Create `file` atomically, only if the name is free (link(2), not rename(2), which overwrites): false if taken. */
export async function createAtomic(file: string, data: string | Uint8Array): Promise<boolean> {
  const tmp = tmpName(file);
  try {
    await writeSynced(tmp, data);
    linkSync(tmp, file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    unlinkQuietly(tmp);
  }
}

/** Remove our own temp files left in `dir` by a killed process. */
export async function sweepTemps(dir: string): Promise<number> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return 0;
  }
  const ours = names.filter(isOurTemp);
  await Promise.all(ours.map((n) => unlink(join(dir, n)).catch(() => {})));
  return ours.length;
}

/** The longest file name, in bytes, of the file systems baton runs on (ext4, xfs, btrfs, tmpfs). */
export const NAME_MAX = 255;

/** `text` cut to at most `bytes` UTF-8 bytes, never inside a character. */
export function cutBytes(text: string, bytes: number): string {
  let out = '';
  let n = 0;
  for (const ch of text) {
    n += Buffer.byteLength(ch);
    if (n > bytes) break;
    out += ch;
  }
  return out;
}

/**
 * `name` numbered `i` (`m.json`, `m.1.json` …), never over NAME_MAX: with no room for its number it is cut and
 * ends with a hash of the whole name (two cut alike still differ). Numbered plainly, a 254-byte name failed with
 * ENAMETOOLONG at every try, at start-up too (bus/folders/aside.ts): the daemon never started.
 */
export function numbered(name: string, i: number): string {
  if (i === 0) return name;
  const dot = name.lastIndexOf('.');
  let [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  const plain = `${stem}.${i}${ext}`;
  if (Buffer.byteLength(plain) <= NAME_MAX) return plain;
  if (Buffer.byteLength(ext) > 16) [stem, ext] = [name, ''];
  const tail = `-${createHash('sha256').update(name).digest('hex').slice(0, 8)}.${i}${ext}`;
  return `${cutBytes(stem, NAME_MAX - Buffer.byteLength(tail))}${tail}`;
}

/**
 * Move a file into `dir` under `name`, or a `numbered` one when taken: never replacing a file (link(2), not
 * rename(2)), safe to repeat after a crash between its link and unlink. Returns the name used.
 */
export async function moveNoClobber(src: string, dir: string, name: string): Promise<string> {
  for (let i = 0; ; i++) {
    const candidate = numbered(name, i);
    try {
      await link(src, join(dir, candidate));
    } catch (err) {
      if (isErrno(err, 'EPERM', 'EISDIR')) {
        // A directory cannot be hard-linked: rename it, to a name nothing has.
        if (await lstat(join(dir, candidate)).catch(() => null)) continue;
        await rename(src, join(dir, candidate));
        return candidate;
      }
      if (!isErrno(err, 'EEXIST')) throw err;
      // Killed between link and unlink last time: the name already is this very file.
      const [a, b] = await Promise.all([lstat(src), lstat(join(dir, candidate))]);
      if (a.ino !== b.ino || a.dev !== b.dev) continue;
    }
    await unlink(src);
    return candidate;
  }
}

export async function ensureDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
}

/** The folders from `root` down to `dir`, each below `root` (never `root` itself); null when `dir` is not below. */
function below(root: string, dir: string): string[] | null {
  const rel = relative(root, dir);
  if (!rel || rel.startsWith('..') || isAbsolute(rel)) return null;
  const parts = rel.split(/[\\/]/);
  return parts.map((_, i) => join(root, ...parts.slice(0, i + 1)));
}

/**
 * Make `dir` and the folders between it and `root`, one mkdir each, never `root` itself: when `root` is
 * gone (a project moved away under a running daemon) this fails with ENOENT instead of making it again,
 * as `mkdir -p` did. A `dir` that is not below `root` is made as `mkdir -p` makes it.
 */
export function makeDirBelowSync(root: string, dir: string): void {
  const steps = below(root, dir);
  if (!steps) {
    mkdirSync(dir, { recursive: true });
    return;
  }
  for (const d of steps) {
    try {
      mkdirSync(d);
    } catch (err) {
      if (!isErrno(err, 'EEXIST')) throw err;
    }
  }
}

/** makeDirBelowSync for an async caller (a few local mkdirs: synchronous, as the header says why). */
export const makeDirBelow = async (root: string, dir: string): Promise<void> => makeDirBelowSync(root, dir);

export const isErrno = (err: unknown, ...codes: string[]): boolean =>
  typeof err === 'object' && err !== null && codes.includes((err as NodeJS.ErrnoException).code ?? '');
