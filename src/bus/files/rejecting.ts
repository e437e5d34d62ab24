/**
 * Moving the files judged invalid to rejected/, behind the queue rather than in it. A rejection is no
 * message: once a file is judged it is out of its folder's order, and the valid file after it may be taken
 * at once while the moves go on. They were awaited in the pass that judged them: with 2,000 bad files
 * dropped at once, a valid message written after them waited for every rename and fsynced note ahead of
 * it (1–2 s of the 2 s it took to reach its pane). Each file still gets its own note, `rejected` event,
 * log line and notice to its sender, as before (intake.ts's reject()).
 *
 * A few moves at once (FEW): each is a rename and a note written and fsynced, several thread-pool round
 * trips; one at a time, 2,000 took ~3 s waiting on each fsync in turn, a few at once share the journal's
 * commits and keep the thread pool (4 threads) busy. A name being moved is not examined again until its
 * move is over (a rescan still lists it, a watcher reports the rename): it would be judged, and moved, twice.
 */
import type { Folder } from './inbox.js';

/** How many files are moved to rejected/ at once (see the header). */
const FEW = 8;

/** A file judged invalid, on its way to rejected/. */
export interface Doomed {
  folder: Folder;
  name: string;
  reason: string;
  /** The file judged (inbox.ts examine): a different file under its name by the time of the move stays. */
  ino?: number | undefined;
}

export interface RejectingParts {
  /** Move it to rejected/ with its note, and say so. */
  move(d: Doomed): Promise<void>;
  /** Its move failed (the file is still in its folder; it was logged): look at it again later. */
  retry(d: Doomed): void;
  log(line: string): void;
  /** A name changed while it was moved (our own rename, or a new file under it): marked dirty, look again. */
  changed(f: Folder): void;
}

export class Rejecting {
  private readonly queue: Doomed[] = [];
  /** By folder: the names queued or being moved, and whether a change was seen meanwhile (look again). */
  private readonly moving = new Map<Folder, Map<string, boolean>>();
  private workers = 0;
  private idle: Promise<void> = Promise.resolve();
  private resolveIdle: () => void = () => {};

  constructor(private readonly p: RejectingParts) {}

  /** `name` in `f` is queued or being moved: not to be examined now. */
  has(f: Folder, name: string): boolean {
    return this.moving.get(f)?.has(name) ?? false;
  }

  /**
   * `name` in `f` changed (a watcher's event, our own rename's among them): true when it is being moved —
   * it is marked to be looked at again once its move is over, not now.
   */
  defer(f: Folder, name: string): boolean {
    const names = this.moving.get(f);
    if (!names?.has(name)) return false;
    names.set(name, true);
    return true;
  }

  /** Move these, in this order, a few at a time; returns at once. */
  add(items: readonly Doomed[]): void {
    if (!items.length) return;
    if (this.workers === 0) this.idle = new Promise((resolve) => (this.resolveIdle = resolve));
    for (const d of items) {
      let names = this.moving.get(d.folder);
      if (!names) this.moving.set(d.folder, (names = new Map()));
      names.set(d.name, false);
      this.queue.push(d);
    }
    while (this.workers < FEW && this.workers < this.queue.length) {
      this.workers++;
      void this.work();
    }
  }

  /** Resolves once every move asked for so far is over. */
  settled(): Promise<void> {
    return this.idle;
  }

  private async work(): Promise<void> {
    for (let d = this.queue.shift(); d; d = this.queue.shift()) {
      try {
        await this.p.move(d);
      } catch (err) {
        this.p.log(`moving ${d.folder.direction.name}/${d.name} to rejected/ failed: ${String(err)}`);
        this.p.retry(d);
      }
      const names = this.moving.get(d.folder);
      const again = names?.get(d.name);
      names?.delete(d.name);
      if (again) {
        d.folder.dirty.add(d.name);
        this.p.changed(d.folder);
      }
    }
    if (--this.workers === 0) this.resolveIdle();
  }
}
