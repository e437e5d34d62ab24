/**
 * Where a file being taken into the archive waits: `.claimed/<direction>/<id>.<name>`, one rename out of
 * its folder. A message ID never holds a dot, so the first dot ends it and the rest is the name the file
 * goes back under.
 *
 * Each claim once had a folder of its own, `.claimed/<direction>/<id>/<name>`: a mkdir and an rmdir on
 * every delivery. On this project's machines (ext4 without a journal) making an inode scans past every
 * inode freed in the last minutes (the kernel's recently_deleted), so under a ping-pong each new inode
 * cost more the longer it ran, and more while other processes on the machine made and removed files: perf
 * of a 300-message ping-pong put a fifth of the daemon's CPU in making inodes, a quarter of that for the
 * claim's folder. That layout is still read — left by an earlier baton killed mid-claim — and still
 * made for a name too long to carry its ID (no file name is over 255 bytes).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { isErrno } from '../../lib/fsx.js';

const NAME_MAX = 255;

/** A claim: the path it is at, its message's ID and the name it came under. */
export interface Claim {
  path: string;
  id: string;
  name: string;
}

/** Where `name` is claimed for `id` in `base` (`.claimed/<direction>`), and whether that needs a folder. */
export function claimPath(base: string, id: string, name: string): { path: string; folder: string | null } {
  const flat = `${id}.${name}`;
  if (Buffer.byteLength(flat) <= NAME_MAX) return { path: join(base, flat), folder: null };
  return { path: join(base, id, name), folder: join(base, id) };
}

/**
 * The claims under `base` (`.claimed/<direction>`): flat ones, and the names of ID folders (the older
 * layout, or a long name's). Null when `base` does not exist.
 */
export function listClaims(base: string): { flat: Claim[]; folders: string[] } | null {
  let names: string[];
  try {
    names = readdirSync(base);
  } catch (err) {
    if (isErrno(err, 'ENOENT', 'ENOTDIR')) return null;
    throw err;
  }
  const flat: Claim[] = [];
  const folders: string[] = [];
  for (const entry of names) {
    const dot = entry.indexOf('.');
    if (dot > 0) flat.push({ path: join(base, entry), id: entry.slice(0, dot), name: entry.slice(dot + 1) });
    else folders.push(entry);
  }
  return { flat, folders };
}
