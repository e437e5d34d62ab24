/**
 * Taking a file judged invalid out of its folder before it goes to rejected/, and judging it again once no
 * writer can reach it. Its move runs behind the queue (rejecting.ts), moments to seconds after the file was
 * judged, and a writer may have put another file under the name meanwhile. The inode was once compared
 * first and the file renamed later — and a rename moves whatever has the name by then: an adversary wrote
 * garbage, then renamed a valid message over the same name a few ms later, 200 times, and 8 to 14 valid
 * messages went to rejected/ under the garbage's note.
 *
 * So the file is first renamed to `.rejecting/<direction>/<name>` under message_dir — one atomic rename
 * takes whatever has the name now, and nothing a writer does with the name from then on touches it — then
 * examined again there (verdict below), and only then moved on: to rejected/ if it is what was judged (or
 * is bad in its own right: then with its own reason), else back to its folder and looked at anew. Back goes
 * under its name, or under a free one (`m.1.json`) when a newer file took the name meanwhile: link(2)
 * refuses a taken name where rename(2) would replace the newer file. `.rejecting/` is empty at rest; what a
 * daemon killed mid-way left there goes back to its folder at the next start (putBackLeftovers).
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
 * Start-up (both buses): every file a daemon killed mid-move left aside (`asideDir`: `.rejecting/`) goes
 * back to its direction's folder — under a free name if its own was taken meanwhile — to be examined anew
 * (a valid message among them is delivered, a bad one rejected as ever; a leftover copy of a file waiting in
 * pending/ is found to be one, approvals.ts). Returns what it did, for the log.
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
