/**
 * A turn step on the files bus, each arrow one durable step:
 *
 *   INBOX ──rename to .claimed/<dir>/<id>/<name>──▶ CLAIMED
 *         ──archive/<id>.json (delivered_at: null)──▶ ARCHIVED
 *         ──remove the claim; state.json (turn passes, counter = N)──▶ COMMITTED
 *
 * Killed in CLAIMED: no record exists for <id>; at start-up the file goes back to its inbox, same name.
 * Killed in ARCHIVED: state.json lags the archive by one; at start-up it is rebuilt from the last record,
 * the leftover claim is removed, and the message is typed (nothing was typed yet). Typing starts only
 * once state.json says COMMITTED (core/delivery.ts has the rest of the way to the stamp).
 *
 * The claim's folder and rename, and the claim's removal, are synchronous calls: small and local, and
 * each async one was a round trip through libuv's thread pool on every message's path (lib/fsx.ts says
 * the same of the writes; only their fsyncs are waited for off the loop).
 */
import { mkdirSync, readdirSync, renameSync, rmdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../../config/config.js';
import { messageRecord, type ArchiveRecord } from '../../core/record.js';
import type { State } from '../../core/state.js';
import type { Decision } from '../../core/turns.js';
import { failpoint } from '../../lib/failpoint.js';
import { isErrno, moveNoClobber } from '../../lib/fsx.js';
import type { Logger } from '../../lib/log.js';
import { archiveNew } from './archive.js';
import { examine, type Examined, type Folder } from './inbox.js';
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
  /** The state after this step, once archived (the in-memory state moves on there). */
  advance: () => State;
}

export type StepResult =
  | { kind: 'committed'; record: ArchiveRecord; saved: boolean }
  | { kind: 'gone' }
  | { kind: 'changed' };

export async function turnStep(l: Layout, config: Config, folder: Folder, s: StepInput): Promise<StepResult> {
  const d = folder.direction;
  const unclaim = async (claimDir: string, name: string) => {
    const back = await moveNoClobber(join(claimDir, name), d.dir, name);
    rmdirQuietly(claimDir); // not empty: another stray, handled on the next attempt
    folder.dirty.add(back);
  };
  // Claim: one atomic rename out of the inbox, so a writer replacing the name from now on makes a new
  // message instead of having its file deleted with ours. What is archived is what was claimed.
  const claimDir = join(l.claims, d.name, s.decision.id);
  // A claim stranded by an earlier failed attempt at this ID goes back to its inbox first.
  if (!makeClaimDir(claimDir)) for (const stray of readdirSync(claimDir)) await unclaim(claimDir, stray);
  folder.entries.delete(s.name);
  try {
    renameSync(join(s.from, s.name), join(claimDir, s.name));
    failpoint('claimed');
  } catch (err) {
    rmdirQuietly(claimDir);
    folder.dirty.add(s.name); // look again: gone (someone else took it), or there after all
    if (isErrno(err, 'ENOENT')) return { kind: 'gone' };
    throw err;
  }
  let claimed: Examined;
  try {
    claimed = await examine({
      dir: claimDir,
      name: s.name,
      route: d,
      maxBytes: config.inbox.max_bytes,
      known: s.known,
    });
  } catch (err) {
    await unclaim(claimDir, s.name);
    throw err;
  }
  if (claimed.kind !== 'valid') {
    await unclaim(claimDir, s.name); // changed since we looked: back in the queue
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
    await archiveNew(l.archive, record);
    failpoint('archived');
  } catch (err) {
    await unclaim(claimDir, s.name);
    throw err;
  }
  const state = s.advance();
  // The claim is now a copy of the archived message (a leftover is removed at the next start), so it
  // goes before state.json is written: either order is the same to recovery.
  try {
    unlinkSync(join(claimDir, s.name));
    rmdirSync(claimDir);
  } catch (err) {
    s.log.warn(`cannot remove the claim ${claimDir}: ${String(err)}`);
  }
  const saved = await writeStateFile(l.state, state).then(
    () => {
      failpoint('state_saved');
      return true;
    },
    (err: unknown) => {
      s.log.warn(`cannot write state.json: ${String(err)}; it is written again before typing`);
      return false;
    },
  );
  return { kind: 'committed', record, saved };
}

/** Make the claim's folder (and its parents). True when it was made, false when it was there already. */
function makeClaimDir(dir: string): boolean {
  try {
    mkdirSync(dir);
    return true;
  } catch (err) {
    if (isErrno(err, 'EEXIST')) return false;
    if (!isErrno(err, 'ENOENT')) throw err;
  }
  mkdirSync(join(dir, '..'), { recursive: true });
  return makeClaimDir(dir);
}

function rmdirQuietly(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    /* not empty, or gone */
  }
}
