/**
 * The record state.json holds back. A turn step on the files bus writes the new state and the message's record
 * as one file (state.json, `delivering`), and the record reaches archive/<id>.json once, stamped, after the
 * typing; a delivery that has to wait (its pane not ready, a failure) archives it unstamped at once. When the
 * record was written at the commit and again at the stamp, each delivered message made three files and freed
 * three; on this machine's ext4 (no journal) making an inode scans past the ones freed in the last minutes, and
 * those files were the largest part of the daemon's CPU per message (docs/decisions/0003).
 *
 * Readers see no difference: the archive's read side counts a held record as archived and undelivered, which it
 * is, and whatever stops with one held (a kill, `doctor --repair`, `up --fresh`) archives it first.
 */
import { parseId } from '../../core/ids.js';
import type { ArchiveRecord } from '../../core/record.js';
import { archiveNew, readRecord } from './archive.js';
import type { Layout } from './layout.js';
import { readStored, type Stored } from './state-file.js';

/** The record `stored` holds back, when it is the state's last message and archive/ does not have it yet. */
async function heldBack(l: Layout, stored: Stored | null): Promise<ArchiveRecord | null> {
  const r = stored?.delivering;
  if (!r || parseId(r.id) !== stored.state.message_counter) return null;
  return (await readRecord(l.archive, r.id)) ? null : r;
}

/** The record state.json holds back now, for a reader; null also when state.json does not read. */
export async function heldRecord(l: Layout): Promise<ArchiveRecord | null> {
  return heldBack(l, await readStored(l.state).catch(() => null));
}

/**
 * Archive the record state.json holds back (unstamped: it may have been typed). Returns it, or null. Without
 * `stored`, state.json is read here, and one that does not read holds nothing (`doctor --repair` replaces it).
 */
export async function archiveHeld(l: Layout, stored?: Stored | null): Promise<ArchiveRecord | null> {
  const r = await heldBack(l, stored === undefined ? await readStored(l.state).catch(() => null) : stored);
  if (r) await archiveNew(l.archive, r);
  return r;
}
