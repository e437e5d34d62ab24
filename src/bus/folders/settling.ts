/**
 * When to look again at files that are not valid yet but could become so (docs/protocol.md §6): one timer per
 * folder, at the earliest due time rounded up to GRID_MS, so files that became still a few ms apart are rejected
 * together (a timer per file, or exact times, woke the loop hundreds of times in a flood).
 * docs/decisions/0002-the-flood.md.
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
