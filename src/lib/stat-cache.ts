/**
 * What was read from a folder (or a file), kept while its lstat is unchanged. The rescan behind the hints
 * lists every watched folder every 2 s, and an idle machine daemon serving 50 conversations spent most of
 * its CPU on those listings (an lstat, an open, two getdents and a close each, through the thread pool)
 * that found nothing new. A folder's mtime and ctime move whenever an entry is added, removed or renamed in it, so one
 * lstat says whether the last listing still holds, and the folder is read again only when it does not.
 *
 * The lstat is taken before the read, so a change during the read moves the times past the stamp kept. A
 * folder changed in the last RACY_MS is read again whatever its stamp: the clock the kernel stamps with is
 * coarse (a jiffy, or a second on some filesystems), and a second change within the same tick as the first
 * would leave both times as they were (git's "racily clean" index entries are the same problem). And a
 * listing is kept at most KEPT_MS whatever the stamps say, for a filesystem whose times lie.
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
