/**
 * The direction folders as queues: watchers name what changed (folder-watch.ts), a full listing every few
 * seconds is the safety net, and each changed name is examined once (inbox.ts). A file that can never be valid
 * leaves the queue at once and is moved to rejected/ behind it (rejecting.ts, rejector.ts, aside.ts); one not
 * valid yet that a writer at work could still finish (the start of a JSON object) keeps its place until it has
 * been unchanged for settle_ms, and is rejected after max(10 × settle_ms, 10 s) if it never stops changing.
 * The files bus serves its queues from here; the PostgreSQL bus relays them into the database, so an agent's
 * file API is the same on both.
 */
import { lstat } from 'node:fs/promises';
import type { Direction } from '../../config/config.js';
import type { Logger } from '../../lib/log.js';
import type { Hint, Queue } from '../bus.js';
import type { EventLog } from '../events.js';
import { ensureDir, isErrno } from '../../lib/fsx.js';
import type { FolderAnchor } from '../anchor.js';
import { examine, isCandidateName, listInbox, type Entry, type Folder } from './inbox.js';
import { StatCache } from '../../lib/stat-cache.js';
import { Entries } from './entries.js';
import { FolderWatch } from './folder-watch.js';
import { Settling } from './settling.js';
import { type Doomed, Rejecting } from './rejecting.js';
import { type Judged, putBackLeftovers } from './aside.js';
import { tidyRejected } from './rejected.js';
import { Rejector } from './rejector.js';

export interface IntakeOptions {
  maxBytes: number;
  settleMs: number;
  rejectedDir: string;
  /** Where a file on its way to rejected/ is examined again, out of its writer's reach (`.rejecting/`, aside.ts). */
  asideDir: string;
  /** Other folders whose changes are hints too (requests/). */
  alsoWatch: Array<{ dir: string; hint: Hint }>;
  events: EventLog;
  log: Logger;
  /**
   * The daemon's folders (anchor.ts): one of its folders removed by hand is made again only inside the message
   * folder it started in, never that folder itself. Without one (a test of the intake alone): `mkdir -p`.
   */
  anchor?: FolderAnchor;
}

/** A direction folder with nothing tracked in it yet. */
const untracked = (direction: Direction): Folder => ({
  direction,
  entries: new Entries(),
  dirty: new Set(),
  taken: new Map(),
  undecodable: [],
  listing: new StatCache(listInbox),
});

export class Intake {
  readonly folders: Folder[];
  /** Each move to rejected/, with its note and its telling (rejector.ts). */
  readonly rejector: Rejector;
  /** What it rejected, until the daemon takes it to tell the senders (Queues.takeRejected). */
  readonly rejected: Rejector['rejected'];
  private readonly hints: FolderWatch;
  private hint: (h: Hint) => void = () => {};
  /** When each folder's files that are not valid yet are looked at again. */
  private readonly settling = new Settling((f) => this.hint({ kind: 'messages', direction: f.direction.name }));
  /** The files judged invalid, on their way to rejected/ behind the queue (rejecting.ts). */
  private readonly rejecting = new Rejecting({
    move: ({ folder, name, reason, judged }) => this.rejector.reject(folder, name, reason, judged),
    log: (line) => this.opts.log.error(line),
    changed: (f) => this.hint({ kind: 'messages', direction: f.direction.name }),
  });
  /** Folders whose watcher gave a hint without a name: listed in full at the next look. */
  private readonly toList = new Set<Folder>();

  constructor(
    directions: readonly Direction[],
    private readonly opts: IntakeOptions,
  ) {
    this.folders = directions.map(untracked);
    this.hints = new FolderWatch(this.folders, { ...opts, relist: (f) => this.toList.add(f) });
    const lookAgain = (f: Folder, name: string) => {
      f.dirty.add(name);
      this.hint({ kind: 'messages', direction: f.direction.name });
    };
    this.rejector = new Rejector({ ...opts, lookAgain });
    this.rejected = this.rejector.rejected;
  }

  async ensureFolders(): Promise<void> {
    const make = (d: string) => (this.opts.anchor ? this.opts.anchor.makeBelow(d) : ensureDir(d));
    const dirs = [this.opts.rejectedDir, ...this.opts.alsoWatch.map((w) => w.dir)];
    await Promise.all([...dirs, ...this.folders.map((f) => f.direction.dir)].map(make));
  }

  /**
   * Start-up (both buses): what a daemon killed mid-rejection left — files taken aside go back to their
   * folders (aside.ts), a file moved to rejected/ without its note gets one. Returns what it did, for the log.
   */
  async recover(): Promise<string[]> {
    const directions = this.folders.map((f) => f.direction);
    const notes = await putBackLeftovers(this.opts.asideDir, directions);
    for (const n of await tidyRejected(this.opts.rejectedDir))
      notes.push(`rejected/${n} had no note (the daemon stopped mid-way); wrote one`);
    return notes;
  }

  async watch(hint: (h: Hint) => void): Promise<void> {
    this.hint = hint;
    await this.hints.start(hint);
  }

  async unwatch(): Promise<void> {
    await this.hints.close();
    await this.rejecting.settled(); // every file judged is in rejected/ with its note, or still in its folder
    this.rejecting.stop(); // a name held after a failed move: no timer left behind
    this.settling.clear();
    this.rejector.flush();
  }

  /** List every folder (read again only when it changed): new names become dirty, vanished ones are forgotten. */
  async rescan(): Promise<void> {
    for (const f of this.folders) await this.list(f);
    await this.rejector.retry(); // after the listings: a folder removed is made again there
    this.hints.heal();
  }

  /** `fresh`: read the folder whatever its stamp (its watcher gave a hint without a name). */
  private async list(f: Folder, fresh = false): Promise<void> {
    this.toList.delete(f);
    f.taken.clear(); // listed in full: nothing a watcher's event could have hidden is missed
    let names: readonly string[];
    if (fresh) f.listing.forget();
    try {
      const { st, value: listing } = await f.listing.read(f.direction.dir);
      if (f.ino !== undefined && st.ino !== f.ino) {
        // Removed and made again between two looks: the watcher still watches the old folder.
        this.opts.log.warn(`${f.direction.dir} was replaced; watching the new folder`);
        this.hints.rewatch(f.direction.dir);
      }
      f.ino = st.ino;
      names = listing.names;
      f.undecodable = [...listing.undecodable]; // moved by the next look: only the loop moves files
    } catch (err) {
      if (!isErrno(err, 'ENOENT')) throw err;
      // The folder was removed under us: make it again and watch the new one — unless the whole message
      // folder went (moved away, removed, replaced): that throws FolderGone, and nothing is made.
      this.opts.anchor?.check();
      this.opts.log.warn(`${f.direction.dir} disappeared; re-creating it`);
      await this.ensureFolders();
      f.ino = (await lstat(f.direction.dir)).ino;
      this.hints.rewatch(f.direction.dir);
      names = [];
    }
    const present = new Set(names);
    for (const n of names) if (!f.entries.has(n) && !this.rejecting.has(f, n)) f.dirty.add(n);
    for (const n of f.entries.keys()) if (!present.has(n)) f.dirty.add(n);
  }

  /**
   * Examine what changed, reject what can never be valid; every folder's entries, oldest first (each with
   * how it was examined: the relay stores a valid one without parsing it again).
   */
  async queues(): Promise<Array<Queue & { items: Entry[] }>> {
    for (const f of this.folders) {
      if (this.toList.has(f)) await this.list(f, true);
      for (const raw of f.undecodable.splice(0)) await this.rejector.rejectRaw(f, raw);
      await this.refresh(f);
    }
    return this.folders.map((f) => ({ direction: f.direction, items: f.entries.ordered() }));
  }

  folderOf(direction: string): Folder {
    return this.folders.find((f) => f.direction.name === direction)!;
  }

  /**
   * Examine the names the watcher or a rescan marked as changed; what can never be valid leaves the queue
   * at once and is moved to rejected/, each with its note, behind it (rejecting.ts).
   */
  private async refresh(f: Folder): Promise<void> {
    const { dir } = f.direction;
    const now = performance.now();
    const doomed: Doomed[] = [];
    const doom = (name: string, reason: string, judged: Judged) => {
      f.entries.delete(name); // out of the queue now: a file after it is not held by it
      doomed.push({ folder: f, name, reason, judged });
    };
    for (const name of [...f.dirty]) {
      f.dirty.delete(name);
      if (this.rejecting.defer(f, name)) continue; // looked at again once its move is over
      if (!isCandidateName(name)) continue;
      const res = await examine({ dir, name, route: f.direction, maxBytes: this.opts.maxBytes });
      let entry = f.entries.get(name);
      if (res.kind === 'gone') {
        f.entries.delete(name);
        continue;
      }
      if (!entry) {
        entry = {
          key: `${f.direction.name}/${name}`,
          name,
          direction: f.direction,
          firstSeen: now,
          result: null,
          unchangedSince: now,
          ready: false,
          message: null,
        };
        f.entries.set(name, entry);
      }
      if (res.kind === 'bad') {
        doom(name, res.reason, { kind: 'bad' });
        continue;
      }
      const prev = entry.result;
      entry.result = res;
      entry.ready = res.kind === 'valid';
      entry.message = res.kind === 'valid' ? res.message : null;
      if (res.kind === 'unsettled') {
        if (prev?.kind !== 'unsettled' || prev.sig !== res.sig) entry.unchangedSince = now;
        const waited = now - entry.unchangedSince;
        const settle = this.opts.settleMs;
        if (waited >= settle) {
          doom(name, res.reason, { kind: 'unsettled', ino: res.ino, sig: res.sig });
        } else if (now - entry.firstSeen > Math.max(10 * settle, 10_000)) {
          // A file that never stops changing must not hold its folder's queue forever.
          const still = Math.round((now - entry.firstSeen) / 1000);
          const judged: Judged = { kind: 'unsettled', ino: res.ino, sig: null };
          doom(name, `${res.reason} (still changing ${still} s after it appeared)`, judged);
        } else {
          // Look again once it has been still for settle_ms; a change (watcher event) looks sooner.
          this.settling.lookAt(f, name, entry.unchangedSince + settle + 5);
        }
      }
    }
    this.rejecting.add(doomed);
  }
}

export type { Entry, Folder };
