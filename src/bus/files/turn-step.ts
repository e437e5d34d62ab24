/**
 * A turn step on the files bus, each arrow one durable step:
 *
 *   INBOX ──rename to .claimed/<dir>/<id>.<name>──▶ CLAIMED
 *         ──state.json (turn passes, counter = N, the record as `delivering`)──▶ COMMITTED
 *         ──remove the claim──▶ (typing; the stamp writes archive/<id>.json: held.ts)
 *
 * Killed in CLAIMED: the file goes back to its inbox at start-up. Killed once COMMITTED: the record is archived
 * from state.json, the claim (a copy) removed, and the message typed again, flagged. A claim stranded at this ID
 * goes back before the ID is used. Rename and removal are synchronous (each async call was a thread-pool round
 * trip per message): docs/decisions/0003-few-syscalls-per-message.md.
 */
import { mkdirSync, readdirSync, renameSync, rmdirSync, unlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Config } from '../../config/config.js';
import { messageRecord, type ArchiveRecord } from '../../core/record.js';
import type { State } from '../../core/state.js';
import type { Decision } from '../../core/turns.js';
import { failpoint } from '../../lib/failpoint.js';
import { isErrno, makeDirBelowSync, moveNoClobber } from '../../lib/fsx.js';
import type { Logger } from '../../lib/log.js';
import { refuseTaken } from './archive.js';
import { claimPath, listClaims } from './claims.js';
import { examine, type Examined, type Folder } from '../folders/inbox.js';
import type { Layout } from './layout.js';
import { writeStateFile } from './state-file.js';

export interface StepInput {
  name: string;
  /** The folder it is taken from: its direction folder, or its approval folder. */
  from: string;
  /** How it was examined before (same bytes: not parsed and validated again). */
  known: Extract<Examined, { kind: 'valid' }> | null;
  firstSeen: number;
  decision: Extract<Decision, { action: 'deliver' }>;
  extra: Record<string, unknown>;
  log: Logger;
  /** The state after this step: written with the record, it commits it. */
  next: State;
}

export type StepResult = { kind: 'committed'; record: ArchiveRecord } | { kind: 'gone' } | { kind: 'changed' };

/**
 * The folders whose `.claimed/<direction>/` holds no claim this daemon left behind: every claim it made
 * since it last listed that folder was archived and removed, or put back. Listed only when not here.
 */
const claimsClear = new WeakSet<Folder>();

export async function turnStep(l: Layout, config: Config, folder: Folder, s: StepInput): Promise<StepResult> {
  const d = folder.direction;
  const unclaim = async (path: string, name: string, claimFolder: string | null) => {
    const back = await moveNoClobber(path, d.dir, name);
    if (claimFolder) rmdirQuietly(claimFolder); // not empty: another stray, handled on the next attempt
    folder.dirty.add(back);
  };
  // Claim: one atomic rename out of the inbox, so a writer replacing the name from now on makes a new
  // message instead of having its file deleted with ours. What is archived is what was claimed.
  const base = join(l.claims, d.name);
  // Listed only while it may hold a claim this daemon did not settle (at the start, or after a step that
  // failed mid-way): a listing per delivery was five system calls for a folder this daemon alone writes.
  if (!claimsClear.has(folder) && (await unclaimStrays(l.root, base, s.decision.id, unclaim))) claimsClear.add(folder);
  const claim = claimPath(base, s.decision.id, s.name);
  // Until this claim is archived and removed, or put back, the folder may hold it.
  const clear = claimsClear.delete(folder) && !claim.folder;
  const settled = () => void (clear && claimsClear.add(folder));
  try {
    if (claim.folder) mkdirSync(claim.folder);
  } catch (err) {
    if (!isErrno(err, 'EEXIST')) throw err; // a long name's claim folder, there already (a stray's, emptied)
  }
  folder.entries.delete(s.name);
  try {
    renameSync(join(s.from, s.name), claim.path);
    if (s.from === d.dir) folder.taken.set(s.name, performance.now()); // its watcher's next event is this move
    failpoint('claimed');
  } catch (err) {
    if (claim.folder) rmdirQuietly(claim.folder);
    folder.dirty.add(s.name); // look again: gone (someone else took it), or there after all
    if (isErrno(err, 'ENOENT')) return { kind: 'gone' };
    throw err;
  }
  let claimed: Examined;
  try {
    claimed = await examine({
      dir: dirname(claim.path),
      name: basename(claim.path),
      route: d,
      maxBytes: config.inbox.max_bytes,
      known: s.known,
    });
  } catch (err) {
    await unclaim(claim.path, s.name, claim.folder);
    throw err;
  }
  if (claimed.kind !== 'valid') {
    await unclaim(claim.path, s.name, claim.folder); // changed since we looked: back in the queue
    settled();
    return { kind: 'changed' };
  }
  const receivedAt = new Date(Date.now() - (performance.now() - s.firstSeen)).toISOString();
  const record = messageRecord({
    message: claimed.message,
    route: { direction: d.name, from: d.from, to: d.to, file: s.name },
    decision: s.decision,
    receivedAt,
    extra: s.extra,
  });
  try {
    refuseTaken(l.archive, record.id);
    await writeStateFile(l.state, s.next, record);
  } catch (err) {
    await unclaim(claim.path, s.name, claim.folder); // not committed: back in its queue
    throw err;
  }
  failpoint('state_saved');
  // The claim is now a copy of the message state.json holds (a leftover is removed at the next start).
  try {
    unlinkSync(claim.path);
    if (claim.folder) rmdirSync(claim.folder);
    settled();
  } catch (err) {
    s.log.warn(`cannot remove the claim ${claim.path}: ${String(err)}`);
  }
  return { kind: 'committed', record };
}

/**
 * A claim stranded by an earlier failed attempt at `id` (either layout) goes back to its inbox first: once
 * this ID is archived, start-up would take a leftover claim of it for a copy of the archived message.
 * True when the folder holds no other claim (nothing left for a later ID to find).
 */
async function unclaimStrays(
  root: string,
  base: string,
  id: string,
  unclaim: (path: string, name: string, claimFolder: string | null) => Promise<void>,
): Promise<boolean> {
  const claims = listClaims(base);
  if (claims === null) {
    makeDirBelowSync(root, base); // never the message folder itself, should it have gone meanwhile
    return true;
  }
  for (const c of claims.flat) if (c.id === id) await unclaim(c.path, c.name, null);
  const others = claims.flat.some((c) => c.id !== id) || claims.folders.some((f) => f !== id);
  if (!claims.folders.includes(id)) return !others;
  const dir = join(base, id);
  for (const stray of readdirSync(dir)) await unclaim(join(dir, stray), stray, dir);
  rmdirQuietly(dir);
  return false; // its folder may still be there (not empty): listed again next time
}

function rmdirQuietly(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    /* not empty, or gone */
  }
}
