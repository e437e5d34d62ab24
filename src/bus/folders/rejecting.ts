/**
 * Moving the files judged invalid to rejected/, behind the queue rather than in it, so the valid file after
 * them is taken at once (awaited in the pass, 2,000 bad files held the next message 1–2 s). Each file still
 * gets its note, event, log line and notice. A few moves at once (FEW) share the journal's commits; a name
 * being moved is not examined again until its move is over. docs/decisions/0002-the-flood.md.
 */
import type { Judged } from './aside.js';
import type { Folder } from './inbox.js';

/** How many files are moved to rejected/ at once (see the header). */
const FEW = 8;
/**
 * How long a name whose move failed is held before it is looked at again: its put-back (rejector.ts) is a
 * change a watcher reports, and looked at again at once, 65 moves failed in 0.7 s on a rejected/ that could
 * not be made. A full disk stays so for a while: once a second.
 */
const RETRY_MS = 1000;

/** A file judged invalid, on its way to rejected/. */
export interface Doomed {
  folder: Folder;
  name: string;
  reason: string;
  /** What was judged: another file under its name by the time of the move goes back, not to rejected/ (aside.ts). */
  judged: Judged;
}

export interface RejectingParts {
  /** Move it to rejected/ with its note, and say so. */
  move(d: Doomed): Promise<void>;
  log(line: string): void;
  /** A name changed while it was moved (our own renames, or a new file under it): marked dirty, look again. */
  changed(f: Folder): void;
}

export class Rejecting {
  private readonly queue: Doomed[] = [];
  /** By folder: the names queued or being moved, and whether a change was seen meanwhile (look again). */
  private readonly moving = new Map<Folder, Map<string, boolean>>();
  /** The names whose move failed, held until RETRY_MS has passed. */
  private readonly held = new Map<NodeJS.Timeout, Doomed>();
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
      (this.moving.get(d.folder) ?? this.moving.set(d.folder, new Map()).get(d.folder)!).set(d.name, false);
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

  /** Let go of the names held after a failed move: marked to be looked at by the next look, if any. */
  stop(): void {
    for (const [timer, d] of this.held) {
      clearTimeout(timer);
      this.release(d, true, false);
    }
    this.held.clear();
  }

  private async work(): Promise<void> {
    for (let d = this.queue.shift(); d; d = this.queue.shift()) {
      try {
        await this.p.move(d);
        this.release(d, false, true);
      } catch (err) {
        this.p.log(`moving ${d.folder.direction.name}/${d.name} to rejected/ failed: ${String(err)}`);
        const timer = setTimeout(() => {
          this.held.delete(timer);
          this.release(d, true, true);
        }, RETRY_MS);
        timer.unref();
        this.held.set(timer, d);
      }
    }
    if (--this.workers === 0) this.resolveIdle();
  }

  /** `d`'s name is no longer being moved: looked at again if it changed meanwhile, or `look`. */
  private release(d: Doomed, look: boolean, wake: boolean): void {
    const names = this.moving.get(d.folder);
    const again = names?.get(d.name);
    names?.delete(d.name);
    if (!again && !look) return;
    d.folder.dirty.add(d.name);
    if (wake) this.p.changed(d.folder);
  }
}
