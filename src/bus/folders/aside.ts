/**
 * Taking a file judged invalid out of its folder and judging it again once no writer can reach it: first one
 * rename to `.rejecting/<direction>/<name>` (a rename moves whatever has the name by then — comparing the inode
 * first sent 8–14 of 200 valid messages renamed over garbage to rejected/), then the verdict, then rejected/ or
 * back (under a free name if a newer file took it: link(2), never rename over). `.rejecting/` is empty at rest;
 * a killed daemon's leftovers go back at the next start (putBackLeftovers). docs/decisions/0002-the-flood.md.
 */
import { lstatSync } from 'node:fs';
import { lstat, mkdir, readdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { isErrno, moveNoClobber } from '../../lib/fsx.js';
import type { Entry, Examined } from './inbox.js';

/** The folder under message_dir that holds, for a moment, the files on their way to rejected/. */
export const ASIDE = '.rejecting';

/** What was judged of a file on its way to rejected/, so that only that file gets there with that reason. */
export type Judged =
  /** Can never be valid: whatever is under the name then goes only if it is bad too (with its own reason). */
  | { kind: 'bad' }
  /**
   * Not valid yet, and unchanged for settle_ms since `sig` — or still changing long after it appeared (`sig`
   * null): the same file (`ino`), as it was.
   */
  | { kind: 'unsettled'; ino: number; sig: string | null }
  /** A valid message the turn rules refuse (a receiver the policy never allows, expired): the same bytes. */
  | { kind: 'valid'; known: Extract<Examined, { kind: 'valid' }> };

/** A waiting message the turn rules refuse: only these bytes (a file put under its name since is looked at anew). */
export const refused = (w: Entry): Judged =>
  w.result?.kind === 'valid' ? { kind: 'valid', known: w.result } : { kind: 'bad' };

export type Verdict =
  | { kind: 'reject'; reason: string }
  /** Not the file judged: back to its folder, looked at anew. */
  | { kind: 'back' }
  | { kind: 'gone' };

/** What becomes of the file `found` aside, judged `judged` under its name with `reason`. */
export function verdict(judged: Judged, found: Examined, reason: string): Verdict {
  if (found.kind === 'gone') return { kind: 'gone' };
  // Bad for good, whatever was judged: its own reason (the file judged, or one as bad put in its place).
  if (found.kind === 'bad') return { kind: 'reject', reason: found.reason };
  const same =
    judged.kind === 'unsettled'
      ? found.kind === 'unsettled' && found.ino === judged.ino && (judged.sig === null || found.sig === judged.sig)
      : judged.kind === 'valid' && found.kind === 'valid' && found.digest === judged.known.digest;
  return same ? { kind: 'reject', reason } : { kind: 'back' };
}

/**
 * Rename whatever has `name` in `dir` into `aside` (its direction's folder under `.rejecting/`, made when
 * missing). False when nothing has the name.
 */
export async function takeAside(dir: string, name: string, aside: string): Promise<boolean> {
  const [from, to] = [join(dir, name), join(aside, name)];
  // Empty at rest, and one move per name at a time (rejecting.ts): a file there is a leftover no start-up
  // put back. Back first, never replaced.
  if (lstatSync(to, { throwIfNoEntry: false })) await moveNoClobber(to, dir, name);
  try {
    await rename(from, to);
  } catch (err) {
    if (!isErrno(err, 'ENOENT')) throw err;
    if (!(await lstat(from).catch(() => null))) return false;
    await mkdir(aside, { recursive: true }); // made here, not before every move: one more round trip each
    await rename(from, to);
  }
  return true;
}

/**
 * Start-up (both buses): every file a killed daemon left aside (`.rejecting/`) goes back to its folder, under a
 * free name if its own was taken, to be examined anew (a leftover copy of a file in pending/ is found to be
 * one, approvals.ts). Returns what it did, for the log.
 */
export async function putBackLeftovers(
  asideDir: string,
  directions: ReadonlyArray<{ name: string; dir: string }>,
): Promise<string[]> {
  const notes: string[] = [];
  for (const d of directions) {
    const aside = join(asideDir, d.name);
    for (const name of await readdir(aside).catch(() => [] as string[])) {
      const back = await moveNoClobber(join(aside, name), d.dir, name);
      notes.push(`${d.name}/${back} was taken aside to be looked at again when the daemon stopped; it is back`);
    }
  }
  return notes;
}
