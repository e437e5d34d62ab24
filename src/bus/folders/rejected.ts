/**
 * rejected/: where bad files go, each with `<name>.error.json` beside it saying why (docs/protocol.md §6).
 * Nothing there is ever overwritten: a taken name gets a numeric suffix (`m.json` → `m.1.json`).
 */
import { createHash } from 'node:crypto';
import { closeSync, constants, existsSync, fsync, open, renameSync, writeFileSync } from 'node:fs';
import { lstat, mkdir, readdir, rename, unlink } from 'node:fs/promises';
import { promisify } from 'node:util';
import { extname, join } from 'node:path';
import { cutBytes, isOurTemp, NAME_MAX, tmpName } from '../../lib/fsx.js';
import { namesIn } from './inbox.js';

const NOTE = '.error.json';
const openAsync = promisify(open);
const fsyncAsync = promisify(fsync);

/**
 * Paths in rejected/ being moved into right now, and their notes': moves run a few at once (intake.ts), and
 * two names may want the same free name (`m.json` and `m.1.json`, or `m.json` whose note is another file's
 * name, `m.json.error.json`) before either is on disk. Picked and reserved with no await in between.
 */
const reserved = new Set<string>();
const taken = (path: string) => reserved.has(path) || existsSync(path);

function freeName(dir: string, name: string): string {
  const ext = extname(name).length <= 16 ? extname(name) : '';
  let stem = name.slice(0, name.length - ext.length);
  // Leave room for ".<n>" and ".error.json" within the file system's 255-byte limit.
  if (Buffer.byteLength(name) + 8 + NOTE.length > NAME_MAX) {
    const hash = createHash('sha256').update(name).digest('hex').slice(0, 8);
    stem = `${cutBytes(stem, NAME_MAX - NOTE.length - ext.length - 8 - 9)}-${hash}`;
  }
  for (let i = 0; ; i++) {
    const candidate = i === 0 ? `${stem}${ext}` : `${stem}.${i}${ext}`;
    if (!taken(join(dir, candidate)) && !taken(join(dir, `${candidate}${NOTE}`))) return candidate;
  }
}

/**
 * Move `src` (a file, link, FIFO or directory — it is moved, never opened) into rejected/ and write the
 * reason beside it. `src` may be raw bytes for a name that is not valid UTF-8. Returns the name it has
 * there, or null if the file vanished before it could be moved.
 */
export async function quarantine(
  rejectedDir: string,
  src: string | Buffer,
  name: string,
  details: { reason: string; direction?: string; [key: string]: unknown },
): Promise<string | null> {
  const target = freeName(rejectedDir, name);
  const path = join(rejectedDir, target);
  const held = [path, notePath(rejectedDir, target)];
  for (const p of held) reserved.add(p);
  try {
    try {
      await rename(src, path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      if (!(await lstat(src).catch(() => null))) return null; // the file vanished
      // rejected/ was removed under us (made here, not before every move: one more round trip each) —
      // itself only: a message folder that went with it is not made again (bus/anchor.ts).
      await mkdir(rejectedDir).catch((e: unknown) => {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      });
      await rename(src, path);
    }
    await writeNote(rejectedDir, target, { file: name, ...details, rejected_at: new Date().toISOString() });
    return target;
  } finally {
    for (const p of held) reserved.delete(p);
  }
}

/**
 * The files in rejected/, by their names there: those with a note beside them (a rejected file may
 * itself be called `x.error.json`, so the suffix alone proves nothing). Empty when there is no folder.
 */
export async function storedRejections(dir: string): Promise<string[]> {
  const names = await namesIn(dir);
  const present = new Set(names);
  return names.filter((n) => present.has(`${n}${NOTE}`));
}

/** Where the note about rejected file `stored` is. */
export const notePath = (dir: string, stored: string): string => join(dir, `${stored}${NOTE}`);

async function writeNote(dir: string, stored: string, note: Record<string, unknown>): Promise<void> {
  await writeOffLoop(notePath(dir, stored), `${JSON.stringify({ ...note, stored_as: stored }, null, 2)}\n`);
}

/**
 * Write `file` atomically (temp file, fsync, rename), creating it off the loop. writeAtomic (lib/fsx.ts)
 * opens synchronously, cheaper for a delivery's few files; but notes come in bulk (2,000 bad files at once),
 * each with its fsync, and each synchronous create in rejected/ waited for the journal commits before it:
 * 2.4 s of the loop held in that flood (node --cpu-prof). The write, close and rename stay on the loop (a
 * few µs each; through the thread pool, busy with the fsyncs, each was a round trip the moves waited for).
 */
async function writeOffLoop(file: string, data: string): Promise<void> {
  const tmp = tmpName(file);
  const fd = await openAsync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644);
  try {
    try {
      writeFileSync(fd, data);
      await fsyncAsync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
  } catch (err) {
    await unlink(tmp).catch(() => {}); // never renamed: not left behind
    throw err;
  }
}

/**
 * After a crash: give every rejected file that lacks its note one (the daemon died between moving it
 * and writing why), and remove our own half-written temp files. Returns the names it annotated.
 */
export async function tidyRejected(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const present = new Set(names);
  const fixed: string[] = [];
  for (const n of names) {
    if (isOurTemp(n) || n.endsWith(NOTE) || present.has(`${n}${NOTE}`)) continue;
    const reason = 'unknown: the daemon stopped before it wrote the reason';
    await writeNote(dir, n, { file: n, reason, rejected_at: new Date().toISOString() });
    fixed.push(n);
  }
  return fixed;
}
