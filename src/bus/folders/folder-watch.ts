/**
 * The hints that something changed in the direction folders (and requests/): one fs.watch (inotify) per
 * folder, naming the entry that changed. A hint only marks a name to look at (intake.ts); the full listing
 * every few seconds is the safety net. Not chokidar: it relisted and lstat'ed the whole folder on every change,
 * and 2,000 bad files took 28 s to reject. docs/decisions/0002-the-flood.md.
 */
import { watch, type FSWatcher } from 'node:fs';
import type { Logger } from '../../lib/log.js';
import type { Hint } from '../bus.js';
import { isCandidateName, type Folder } from './inbox.js';

/** How long a name this daemon moved out waits for the watcher's event of that move (a lost one expires). */
const OWN_MOVE_MS = 1000;

/**
 * The event for a name this daemon has just moved out (a claim) is that move: no hint. In a ping-pong it woke,
 * for every message, a pass that found nothing and a look at the receiver's pane that went stale unused.
 * inotify keeps a folder's events in order, so a new file under the name comes after it, as a hint; a lost
 * event (an overflow relists the folder, clearing these) leaves the name to the next look.
 */
function ownMove(folder: Folder, name: string): boolean {
  const at = folder.taken.get(name);
  if (at === undefined) return false;
  folder.taken.delete(name);
  return performance.now() - at <= OWN_MOVE_MS;
}

export class FolderWatch {
  /** By folder path: direction folders and the other watched folders. */
  private readonly watchers = new Map<string, FSWatcher>();
  private hint: ((h: Hint) => void) | null = null;
  private readonly byDir: ReadonlyMap<string, Folder>;
  private readonly extra: ReadonlyMap<string, Hint>;

  constructor(
    folders: readonly Folder[],
    private readonly opts: {
      alsoWatch: Array<{ dir: string; hint: Hint }>;
      log: Logger;
      /** A folder's hints cannot be trusted (an event without a name): list it in full at the next look. */
      relist(folder: Folder): void;
    },
  ) {
    this.byDir = new Map(folders.map((f) => [f.direction.dir, f]));
    this.extra = new Map(opts.alsoWatch.map((w) => [w.dir, w.hint]));
  }

  async start(hint: (h: Hint) => void): Promise<void> {
    this.hint = hint;
    for (const dir of [...this.byDir.keys(), ...this.extra.keys()]) this.attach(dir);
  }

  private attach(dir: string): void {
    this.watchers.get(dir)?.close();
    this.watchers.delete(dir);
    const folder = this.byDir.get(dir);
    const other = this.extra.get(dir);
    try {
      const w = watch(dir, (_event, name) => {
        const hint = this.hint;
        if (!hint) return;
        if (other) return hint(other);
        if (!folder) return;
        if (typeof name !== 'string') {
          this.opts.relist(folder); // no name given: look at all of it
        } else if (isCandidateName(name)) {
          if (ownMove(folder, name)) return;
          folder.dirty.add(name);
        } else return; // a dot-file or temp file is never read (docs/protocol.md §3)
        hint({ kind: 'messages', direction: folder.direction.name });
      });
      w.on('error', (err) => {
        // The folder went away: the rescan makes it again and watches it (rewatch()).
        this.opts.log.debug(`watcher of ${dir}: ${String(err)}`);
        w.close();
        if (this.watchers.get(dir) === w) this.watchers.delete(dir);
      });
      this.watchers.set(dir, w);
    } catch (err) {
      // No folder now: the rescan carries on, and makes and watches it again.
      this.opts.log.debug(`cannot watch ${dir}: ${String(err)}`);
    }
  }

  /** A folder was made again (or its watch was lost): watch the folder there now. */
  rewatch(dir: string): void {
    if (this.hint) this.attach(dir);
  }

  /** Watch again any folder whose watch was lost (it was removed, and made again since). */
  heal(): void {
    if (!this.hint) return;
    for (const dir of [...this.byDir.keys(), ...this.extra.keys()]) if (!this.watchers.has(dir)) this.attach(dir);
  }

  async close(): Promise<void> {
    this.hint = null;
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
  }
}
