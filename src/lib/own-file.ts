/**
 * Reading a file someone else may have put there (an agent's hook spool, its transcript): only a regular file this
 * user owns, never through a link, never over a cap. A FIFO hung the daemon's loop for good and a link to /dev/zero
 * took it to 645 MB: O_NOFOLLOW, O_NONBLOCK and the handle's own fstat decide. Reasons never quote the file.
 * docs/decisions/0008-what-an-agent-writes-is-hostile.md.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';

export type OwnFile =
  | { ok: true; data: Buffer }
  /** Not there (any more): nothing to say about it. */
  | { ok: false; gone: true }
  /** Refused, and why — in baton's words, never the file's. */
  | { ok: false; gone?: false; reason: string };

/** What a file is, when it is not a regular file. */
export function fileType(st: Stats): string {
  if (st.isSymbolicLink()) return 'a symbolic link';
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

const uid = process.getuid?.();

/** Open `path` only if it is a regular file of this user's (a link is not followed); the caller closes it. */
export async function openOwnFile(
  path: string,
): Promise<{ ok: true; fh: FileHandle; size: number } | Exclude<OwnFile, { ok: true }>> {
  let fh: FileHandle;
  try {
    fh = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { ok: false, gone: true };
    if (code === 'ELOOP') return { ok: false, reason: 'a symbolic link (never followed)' };
    return { ok: false, reason: `cannot open it (${code ?? 'error'})` };
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new Refused(`not a regular file (${fileType(st)})`);
    if (uid !== undefined && st.uid !== uid) throw new Refused(`owned by another user (uid ${st.uid})`);
    return { ok: true, fh, size: st.size };
  } catch (err) {
    await fh.close().catch(() => {});
    if (err instanceof Refused) return { ok: false, reason: err.message };
    return { ok: false, reason: `cannot read it (${(err as NodeJS.ErrnoException).code ?? 'error'})` };
  }
}

class Refused extends Error {}

/** Read `length` bytes (fewer at the end of the file) from `position`, in a loop: one read may return less. */
export async function readAt(fh: FileHandle, position: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(length);
  let got = 0;
  while (got < length) {
    const { bytesRead } = await fh.read(buf, got, length - got, position + got);
    if (bytesRead === 0) break;
    got += bytesRead;
  }
  return buf.subarray(0, got);
}

/** A regular file this user owns, whole, if at most `maxBytes` long: never more than `maxBytes + 1` read. */
export async function readOwnFile(path: string, maxBytes: number): Promise<OwnFile> {
  const o = await openOwnFile(path);
  if (!o.ok) return o;
  try {
    if (o.size > maxBytes) return { ok: false, reason: `${o.size} bytes, over the limit of ${maxBytes}` };
    const data = await readAt(o.fh, 0, Math.min(o.size, maxBytes) + 1);
    if (data.length > maxBytes) return { ok: false, reason: `over the limit of ${maxBytes} bytes while being read` };
    return { ok: true, data };
  } catch (err) {
    return { ok: false, reason: `cannot read it (${(err as NodeJS.ErrnoException).code ?? 'error'})` };
  } finally {
    await o.fh.close().catch(() => {});
  }
}

/** readOwnFile, synchronously, for a caller that cannot wait (status, the dashboard); null when refused. */
export function readOwnFileSync(path: string, maxBytes: number): Buffer | null {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || (uid !== undefined && st.uid !== uid) || st.size > maxBytes) return null;
    const buf = Buffer.alloc(Math.min(st.size, maxBytes) + 1); // one more: a file that grew is seen
    let got = 0;
    for (let n = 1; n > 0 && got < buf.length; got += n) n = readSync(fd, buf, got, buf.length - got, got);
    return got > maxBytes ? null : buf.subarray(0, got);
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}
