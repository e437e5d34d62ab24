/**
 * Where the relay claims a file: `<direction>/.relaying/<claim>-<name>`, `<claim>` = `<ms>-<pid>-<n>`; the path
 * below `.relaying/` is the tail of the relay key, so a relay finished at the next start stores it under the same
 * key. A name too long for that (over ~225 bytes: ENAMETOOLONG stranded it) is claimed into
 * `.relaying/<claim>/<name>`; an empty such folder left by a kill is removed at the next start.
 */
import { type Dirent, lstatSync, mkdirSync, readdirSync, renameSync, rmdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { failpoint } from '../../lib/failpoint.js';
import { isErrno, NAME_MAX } from '../../lib/fsx.js';

const CLAIM = /^(\d+)-\d+-(\d+)[-/]/;

/** The claim of `name` as `id` (`<ms>-<pid>-<n>`): its path below `.relaying/`, and its folder there if it needs one. */
export function claimOf(id: string, name: string): { as: string; folder: string | null } {
  const flat = `${id}-${name}`;
  return Buffer.byteLength(flat) <= NAME_MAX ? { as: flat, folder: null } : { as: `${id}/${name}`, folder: id };
}

/** What claiming a file came to: claimed; gone (the next look says why); failed, and why (tried again). */
export type Claiming = { kind: 'claimed' } | { kind: 'gone' } | { kind: 'failed'; why: string };

/**
 * Rename `from` into `relaying` as `as` (claimOf), with its folder for a long name. Synchronous: one local
 * rename (and a mkdir for a long name), where the async call was a round trip through libuv's thread pool
 * on every message's path before its insert. A `.relaying/` removed by hand is made again — itself only.
 */
export function claimInto(relaying: string, from: string, as: string): Claiming {
  const folder = folderOf(as);
  const move = () => {
    if (folder) mkdirSync(join(relaying, folder));
    renameSync(from, join(relaying, as));
  };
  try {
    try {
      move();
    } catch (err) {
      if (!isErrno(err, 'ENOENT') || !lstatSync(from, { throwIfNoEntry: false })) throw err;
      mkdirSync(relaying); // the file is there, `.relaying/` is not
      move();
    }
  } catch (err) {
    dropFolder(relaying, as);
    return lstatSync(from, { throwIfNoEntry: false }) ? { kind: 'failed', why: String(err) } : { kind: 'gone' };
  }
  failpoint('relay_claimed');
  return { kind: 'claimed' };
}

/** The name a claimed file came under (a name in `.relaying/` that is no claim is its own). */
export const nameOf = (as: string): string => {
  const m = CLAIM.exec(as);
  return m ? as.slice(m[0].length) : as;
};

/** The folder a claim sits in below `.relaying/` (a long name's), or null. */
const folderOf = (as: string): string | null => (as.includes('/') ? dirname(as) : null);

/** A claim's order: by time, then by count. */
export function claimOrder(a: string, b: string): number {
  const [x, y] = [CLAIM.exec(a), CLAIM.exec(b)];
  return Number(x?.[1] ?? 0) - Number(y?.[1] ?? 0) || Number(x?.[2] ?? 0) - Number(y?.[2] ?? 0);
}

/** Remove a long name's claim folder once its file is gone; not empty or gone: left. */
export function dropFolder(relaying: string, as: string): void {
  const folder = folderOf(as);
  if (folder !== null) rmdirQuietly(join(relaying, folder));
}

function rmdirQuietly(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    /* not empty (a stray put there by hand: left for a person), or gone */
  }
}

/**
 * The claims in `relaying` (a `.relaying/` folder), oldest first: flat ones and those in a long name's
 * folder. `tidy`: an empty claim folder (a relay killed around its mkdir or rmdir) is removed. Empty when
 * there is no folder.
 */
export function listClaimed(relaying: string, tidy = false): string[] {
  const out: string[] = [];
  for (const e of entries(relaying)) {
    if (!e.isDirectory() || !/^\d+-\d+-\d+$/.test(e.name)) {
      out.push(e.name); // a flat claim (or a stray: relayed as its own name, or put back)
      continue;
    }
    const inside = entries(join(relaying, e.name));
    for (const f of inside) out.push(`${e.name}/${f.name}`);
    if (!inside.length && tidy) rmdirQuietly(join(relaying, e.name));
  }
  return out.sort(claimOrder);
}

/** A folder's entries; none when it cannot be read (as the relay has always read `.relaying/`). */
function entries(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}
