/**
 * The files tracked in one direction folder, kept in name order (the order they are taken in, docs/protocol.md
 * §3), each inserted or removed where a binary search finds it. Sorting at every pass cost O(n log n) however
 * little had changed; with 2,000 files dropped at once a pass ran per file (node --cpu-prof: the largest cost).
 */
/** The order files are taken in: by name (docs/protocol.md §3). */
export const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

const before = (a: string, b: string): boolean => byName(a, b) < 0;

/** By name, in name order: a folder's tracked files (what inbox.ts calls an Entry). */
export class Entries<Entry extends { name: string }> extends Map<string, Entry> {
  /** The entries in name order; null until first asked for (a Map's constructor calls set() before it is made). */
  private order: Entry[] | null = null;

  override set(name: string, entry: Entry): this {
    const had = super.get(name);
    super.set(name, entry);
    const order = this.order;
    if (!order) return this;
    const i = this.indexOf(name);
    if (had) order[i] = entry;
    else order.splice(i, 0, entry);
    return this;
  }

  override delete(name: string): boolean {
    if (!super.delete(name)) return false;
    const order = this.order;
    if (order) order.splice(this.indexOf(name), 1);
    return true;
  }

  override clear(): void {
    super.clear();
    this.order = null;
  }

  /** Every entry, in name order (a copy: the caller may keep it). */
  ordered(): Entry[] {
    this.order ??= [...super.values()].sort((a, b) => byName(a.name, b.name));
    return this.order.slice();
  }

  /** Where `name` is in the order, or where it would go. */
  private indexOf(name: string): number {
    const order = this.order!;
    let lo = 0;
    let hi = order.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (before(order[mid]!.name, name)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
