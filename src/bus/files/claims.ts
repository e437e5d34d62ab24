/**
 * Where a file being taken into the archive waits: `.claimed/<direction>/<id>.<name>`, one rename out of its
 * folder (an ID holds no dot, so the first dot ends it). A folder per claim made an inode per delivery, a
 * fifth of the daemon's CPU on this ext4; that layout is still read, and made for a name too long to carry its
 * ID. docs/decisions/0003-few-syscalls-per-message.md.
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
