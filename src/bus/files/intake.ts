/**
 * The direction folders as queues: watchers say which names changed (folder-watch.ts: fs.watch on each
 * folder), a full listing every few seconds is the safety net, and each
 * changed name is examined once (inbox.ts: never following a link, never opening a FIFO, never reading
 * past max_bytes). A file that can never be valid is moved to rejected/ at once; one that does not parse
 * yet waits until it has been unchanged for settle_ms (a slow writer pausing mid-file is not rejected),
 * and one that never stops changing is rejected after max(10 × settle_ms, 10 s). The files bus serves its
 * queues from here; the PostgreSQL bus relays what it finds here into the database, so an agent's file
 * API is the same on both.
 */
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Direction } from '../../config/config.js';
import type { Logger } from '../../lib/log.js';
import type { Hint, Queue } from '../bus.js';
import { RejectedSince } from '../rejected-since.js';
import type { EventLog } from '../events.js';
import { ensureDir, isErrno } from '../../lib/fsx.js';
import { examine, isCandidateName, listInbox, type Entry, type Folder } from './inbox.js';
import { StatCache } from '../../lib/stat-cache.js';
import { Entries } from './entries.js';
import { FolderWatch } from './folder-watch.js';
import { Settling } from './settling.js';
import { quarantine } from './rejected.js';

export interface IntakeOptions {
  maxBytes: number;
  settleMs: number;
  rejectedDir: string;
  /** Other folders whose changes are hints too (requests/). */
  alsoWatch: Array<{ dir: string; hint: Hint }>;
  events: EventLog;
  log: Logger;
}

/**
 * How many files are moved to rejected/ at once. Each move is a rename and a note written and fsynced
 * (several thread-pool round trips); one at a time, 2,000 bad files took ~3 s of the flood after the
 * settle time had passed, waiting on each fsync in turn. A few at once share the journal's commits and
 * keep the thread pool (4 threads) busy; every file still gets its own note and its own `rejected` event.
 */
const REJECTING = 8;

export class Intake {
  readonly folders: Folder[];
  /** What it rejected, until the daemon takes it to tell the senders (Queues.takeRejected). */
  readonly rejected = new RejectedSince();
  private readonly hints: FolderWatch;
  private hint: (h: Hint) => void = () => {};
  /** When each folder's files that are not valid yet are looked at again. */
  private readonly settling = new Settling((f) => this.hint({ kind: 'messages', direction: f.direction.name }));
  /** Folders whose watcher gave a hint without a name: listed in full at the next look. */
  private readonly toList = new Set<Folder>();

  constructor(
    directions: readonly Direction[],
    private readonly opts: IntakeOptions,
  ) {
    this.folders = directions.map((direction) => ({
      direction,
      entries: new Entries(),
      dirty: new Set(),
      undecodable: [],
      listing: new StatCache(listInbox),
    }));
    this.hints = new FolderWatch(this.folders, { ...opts, relist: (f) => this.toList.add(f) });
  }

  async ensureFolders(): Promise<void> {
    await Promise.all(
      [
        this.opts.rejectedDir,
        ...this.opts.alsoWatch.map((w) => w.dir),
        ...this.folders.map((f) => f.direction.dir),
      ].map(ensureDir),
    );
  }

  async watch(hint: (h: Hint) => void): Promise<void> {
    this.hint = hint;
    await this.hints.start(hint);
  }

  async unwatch(): Promise<void> {
    this.settling.clear();
    await this.hints.close();
  }

  /** List every folder (read again only when it changed): new names become dirty, vanished ones are forgotten. */
  async rescan(): Promise<void> {
    for (const f of this.folders) await this.list(f);
    this.hints.heal();
  }

  /** `fresh`: read the folder whatever its stamp (its watcher gave a hint without a name). */
  private async list(f: Folder, fresh = false): Promise<void> {
    this.toList.delete(f);
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
      // The folder was removed under us: make it again and watch the new one.
      this.opts.log.warn(`${f.direction.dir} disappeared; re-creating it`);
      await this.ensureFolders();
      f.ino = (await lstat(f.direction.dir)).ino;
      this.hints.rewatch(f.direction.dir);
      names = [];
    }
    const present = new Set(names);
    for (const n of names) if (!f.entries.has(n)) f.dirty.add(n);
    for (const n of f.entries.keys()) if (!present.has(n)) f.dirty.add(n);
  }

  /** Examine what changed, reject what can never be valid; every folder's entries, oldest first. */
  async queues(): Promise<Queue[]> {
    for (const f of this.folders) {
      if (this.toList.has(f)) await this.list(f, true);
      for (const raw of f.undecodable.splice(0)) await this.rejectRaw(f, raw);
      await this.refresh(f);
    }
    return this.folders.map((f) => ({
      direction: f.direction,
      items: f.entries.ordered(),
    }));
  }

  folderOf(direction: string): Folder {
    return this.folders.find((f) => f.direction.name === direction)!;
  }

  /**
   * Examine the names the watcher or a rescan marked as changed; then move what can never be valid to
   * rejected/, each with its note, a few at a time (see REJECTING).
   */
  private async refresh(f: Folder): Promise<void> {
    const { dir } = f.direction;
    const now = performance.now();
    const doomed: Array<{ name: string; reason: string }> = [];
    const doom = (name: string, reason: string) => {
      f.entries.delete(name); // out of the queue now; moved below
      doomed.push({ name, reason });
    };
    for (const name of [...f.dirty]) {
      f.dirty.delete(name);
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
        doom(name, res.reason);
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
          doom(name, res.reason);
        } else if (now - entry.firstSeen > Math.max(10 * settle, 10_000)) {
          // A file that never stops changing must not hold its folder's queue forever.
          const still = Math.round((now - entry.firstSeen) / 1000);
          doom(name, `${res.reason} (still changing ${still} s after it appeared)`);
        } else {
          // Look again once it has been still for settle_ms; a change (watcher event) looks sooner.
          this.settling.lookAt(f, name, entry.unchangedSince + settle + 5);
        }
      }
    }
    // A name whose move failed is looked at again; the first error is thrown once the others are done.
    await eachFew(doomed, REJECTING, ({ name, reason }) =>
      this.reject(f, name, reason).catch((err: unknown) => {
        f.dirty.add(name);
        throw err;
      }),
    );
  }

  /**
   * Move a file to rejected/ with its note, and say so. `src` defaults to the file's path in its folder;
   * `extra` goes into the note.
   */
  async reject(
    f: Folder,
    name: string,
    reason: string,
    more: { src?: string | Buffer; extra?: Record<string, unknown> } = {},
  ): Promise<void> {
    const { src = join(f.direction.dir, name), extra = {} } = more;
    f.entries.delete(name);
    await ensureDir(this.opts.rejectedDir);
    const { direction } = f;
    const moved = await quarantine(this.opts.rejectedDir, src, name, {
      reason,
      direction: direction.name,
      from: direction.from,
      to: direction.to,
      ...extra,
    });
    if (!moved) return;
    this.opts.log.warn(`rejected ${direction.name}/${name}: ${reason}`);
    this.rejected.add({ direction, file: name, reason });
    await this.opts.events.emit('rejected', { file: name, direction: direction.name, reason, stored_as: moved.name });
  }

  /** A name that is not valid UTF-8 can only be reached by its bytes; it is moved under a readable name. */
  private async rejectRaw(f: Folder, raw: Buffer): Promise<void> {
    const shown = raw.toString('utf8').replace(/[\uFFFD\u0000-\u001F/]/g, '_');
    const path = Buffer.concat([Buffer.from(`${f.direction.dir}/`), raw]);
    await this.reject(f, shown, 'the file name is not valid UTF-8', {
      src: path,
      extra: { file_name_base64: raw.toString('base64') },
    });
  }
}

/** Run `fn` on every item, `n` at a time; once all are done, throw the first error if any failed. */
async function eachFew<T>(items: readonly T[], n: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { err: unknown } | null = null;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++]!;
      await fn(item).catch((err: unknown) => {
        failure ??= { err };
      });
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
  if (failure) throw (failure as { err: unknown }).err;
}

export type { Entry, Folder };
