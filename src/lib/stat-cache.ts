/**
 * What was read from a folder (or file), kept while its lstat (taken before the read) is unchanged: an idle
 * daemon serving 50 conversations spent most of its CPU relisting folders. One changed in the last RACY_MS is
 * read again (coarse clocks, git's "racily clean"); nothing is kept past KEPT_MS.
 * docs/decisions/0004-one-process-many-conversations.md.
 */
import { lstatSync, type Stats } from 'node:fs';

const RACY_MS = 2000;
const KEPT_MS = 30_000;

export class StatCache<T> {
  private last: { stamp: string; value: T; at: number } | null = null;

  constructor(private readonly reader: (path: string) => Promise<T>) {}

  /** The path's lstat (taken now; ENOENT and the like are thrown) and what is read there, read only if it changed. */
  async read(path: string): Promise<{ st: Stats; value: T }> {
    const st = lstatSync(path);
    const stamp = stampOf(st);
    const now = performance.now();
    if (stamp !== null && this.last?.stamp === stamp && now - this.last.at < KEPT_MS)
      return { st, value: this.last.value };
    this.last = null;
    const value = await this.reader(path);
    if (stamp !== null) this.last = { stamp, value, at: now };
    return { st, value };
  }

  /** Read it again at the next look, whatever its stamp. */
  forget(): void {
    this.last = null;
  }
}

/** What moves when an entry of the folder (or the file) changes; null while a change may not have moved it yet. */
function stampOf(st: Stats): string | null {
  if (Math.abs(Date.now() - Math.max(st.mtimeMs, st.ctimeMs)) < RACY_MS) return null;
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
}
