/**
 * The folders a daemon serves one conversation from (its config's folder and its message folder) as it found them
 * at its first lease: every later lease and durable write checks the same device and inode. `mv` of a served
 * project once made the daemon start a fresh conversation in a new folder and type its messages into the moved
 * project's pane. A folder gone, moved or replaced stops that conversation (FolderGone); only the first start makes
 * a missing message folder (docs/protocol.md §2). docs/decisions/0009-state-a-person-can-break.md.
 */
import { statSync } from 'node:fs';
import { relative } from 'node:path';
import type { Config } from '../config/config.js';
import { ensureDir, isErrno, makeDirBelow } from '../lib/fsx.js';
import { StoreChanged } from './turns.js';

/** A served folder is gone, moved away or replaced: what it served is not made again. */
export class FolderGone extends StoreChanged {
  override name = 'FolderGone';
}

/**
 * A folder as found: device, inode and birth time. The inode alone does not tell a folder removed and made
 * again from the one before — ext4 and tmpfs hand the freed inode straight back (`rm -rf messages; mkdir
 * messages` kept its number) — but its birth time does, where the filesystem keeps one (0 where it does
 * not: NFS; there the inode is all there is).
 */
type Seen = { dev: number; ino: number; born: number };

/** The folder at `path` now: null when nothing is there. */
function look(path: string): (Seen & { dir: boolean }) | null {
  try {
    const st = statSync(path);
    return { dev: st.dev, ino: st.ino, born: st.birthtimeMs, dir: st.isDirectory() };
  } catch (err) {
    if (isErrno(err, 'ENOENT', 'ENOTDIR')) return null;
    throw err;
  }
}

const gone = (path: string, what: string) =>
  new FolderGone(
    `${path} ${what} while the daemon served it: it is not made again; "baton up" there brings the conversation back`,
  );

export class FolderAnchor {
  /** The project: the config file's folder (or, for the built-in default, the folder it was found for). */
  readonly project: string;
  /** The message folder. */
  readonly root: string;
  private pinned: Array<Seen & { path: string }> | null = null;

  constructor(config: Pick<Config, 'file' | 'baseDir' | 'messageDir'>) {
    this.project = config.baseDir;
    this.root = config.messageDir;
  }

  /**
   * At each lease. The first: the project must be there; a missing message folder is made (the daemon's first
   * start, docs/protocol.md §2 — below the project only, never the project itself), then both are pinned.
   * Every later one: check().
   */
  async atLease(): Promise<void> {
    if (this.pinned) return this.check();
    if (!look(this.project)?.dir) throw gone(this.project, 'is not there');
    const under = !relative(this.project, this.root).startsWith('..');
    await (under ? makeDirBelow(this.project, this.root) : ensureDir(this.root)).catch((err: unknown) => {
      throw isErrno(err, 'ENOENT', 'ENOTDIR') ? gone(this.project, 'went away') : err;
    });
    this.pinned = [this.project, this.root].map((path) => {
      const now = look(path);
      if (!now?.dir) throw gone(path, 'went away');
      return { path, dev: now.dev, ino: now.ino, born: now.born };
    });
  }

  /** Throws FolderGone when a pinned folder is gone or another stands at its path. Before the first lease: nothing. */
  check(): void {
    for (const f of this.pinned ?? []) {
      const now = look(f.path);
      if (!now) throw gone(f.path, 'is gone (moved away or removed)');
      if (!now.dir) throw gone(f.path, 'is not a folder any more');
      const reborn = f.born !== 0 && now.born !== 0 && now.born !== f.born;
      if (now.dev !== f.dev || now.ino !== f.ino || reborn)
        throw gone(f.path, 'is another folder now (moved away or removed, and made again)');
    }
  }

  /**
   * Make `dir`, a folder under the message folder (a direction folder removed by hand, rejected/), checking
   * first: never the message folder itself, nor inside one that replaced it.
   */
  async makeBelow(dir: string): Promise<void> {
    this.check();
    try {
      await makeDirBelow(this.root, dir);
    } catch (err) {
      if (isErrno(err, 'ENOENT', 'ENOTDIR')) this.check(); // the message folder went meanwhile: say that
      throw err;
    }
  }
}
