/**
 * When to look again at a folder's files that are not valid yet but could become so (the start of a JSON
 * object: a writer may still be at work, docs/protocol.md §6): each is rejected once it has stayed
 * unchanged for settle_ms, so it is looked at again then. One timer per folder, at the earliest such
 * time, marks every file due by then: a timer per file made 2,000 bad files dropped at once 2,000
 * wake-ups, each a pass over the queue.
 * The times are rounded up to GRID_MS, so files that became still a few ms apart are looked at (and
 * rejected) together: with exact times, a flood written over 0.3 s woke the loop ~300 times to reject a
 * handful each, and those passes over the whole queue were the daemon's largest cost (node --cpu-prof).
 */
import type { Folder } from './inbox.js';

/** Due times are rounded up to this: at most this late, against a settle_ms of 1 s by default. */
const GRID_MS = 25;

export class Settling {
  /** By folder: when each of its waiting names is due (performance.now() time). */
  private readonly due = new Map<Folder, Map<string, number>>();
  private readonly timers = new Map<Folder, { at: number; timer: NodeJS.Timeout }>();

  /** `wake` is told when names of a folder were marked dirty. */
  constructor(private readonly wake: (f: Folder) => void) {}

  /** Look at `name` in `f` again at `at` (a later call for the same name replaces the time). */
  lookAt(f: Folder, name: string, at: number): void {
    let names = this.due.get(f);
    if (!names) this.due.set(f, (names = new Map()));
    const when = Math.ceil(at / GRID_MS) * GRID_MS;
    names.set(name, when);
    this.schedule(f, when);
  }

  private schedule(f: Folder, at: number): void {
    const cur = this.timers.get(f);
    if (cur && cur.at <= at) return;
    if (cur) clearTimeout(cur.timer);
    const timer = setTimeout(() => this.fire(f), Math.max(0, at - performance.now()));
    timer.unref();
    this.timers.set(f, { at, timer });
  }

  private fire(f: Folder): void {
    this.timers.delete(f);
    const names = this.due.get(f);
    if (!names) return;
    const now = performance.now();
    let next = Infinity;
    for (const [name, at] of names) {
      if (at <= now + 1) {
        f.dirty.add(name);
        names.delete(name);
      } else next = Math.min(next, at);
    }
    if (next !== Infinity) this.schedule(f, next);
    this.wake(f);
  }

  clear(): void {
    for (const t of this.timers.values()) clearTimeout(t.timer);
    this.timers.clear();
    this.due.clear();
  }
}
