/**
 * Following one append-only file (events.jsonl) for `baton log --follow` and the dashboard. This is
 * fs.watch, not chokidar: chokidar reports at most one change per file per 50 ms, so the second of two
 * quick appends would wait for a later one. A stat every `pollMs` is the safety net: the file not there
 * yet, replaced by a new one (a new inode is watched again), or a file system without inotify.
 */
import { statSync, watch, type FSWatcher } from 'node:fs';

export interface Follower {
  close(): void;
}

export function followFile(file: string, onChange: () => void, pollMs = 250): Follower {
  let watcher: FSWatcher | null = null;
  let ino: number | null = null;
  const drop = () => {
    watcher?.close();
    watcher = null;
    ino = null;
  };
  const attach = () => {
    let now: number;
    try {
      now = statSync(file).ino;
    } catch {
      drop();
      return;
    }
    if (watcher && now === ino) return;
    drop();
    try {
      watcher = watch(file, { persistent: false }, () => onChange());
      watcher.on('error', drop);
      ino = now;
    } catch {
      drop(); // gone between the stat and the watch: the next poll tries again
    }
  };
  attach();
  const timer = setInterval(() => {
    attach();
    onChange();
  }, pollMs);
  return {
    close() {
      clearInterval(timer);
      drop();
    },
  };
}
