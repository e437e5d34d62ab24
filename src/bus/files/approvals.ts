/**
 * Moderated mode on the files bus (docs/protocol.md §9): the turn holder's valid message waits in
 * `pending/<direction>/<name>`, no ID yet and the state unchanged, until a person approves it (its turn step
 * is committed from here) or refuses it (rejected/, with their reason). One per sender: the next is held.
 *
 * The move is one rename: whatever has the name then waits, and a file put under the name afterwards is a new
 * message. It was a link(2) then an unlink(2) by name, and a message renamed over the name between the two was
 * unlinked: lost. A move an older baton left cut short (the same file linked in both folders) is finished at
 * the next look, the folder's copy taken aside first (folders/aside.ts) and removed only if it still is that file.
 */
import { existsSync } from 'node:fs';
import { lstat, readdir, rename, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Direction } from '../../config/config.js';
import type { Logger } from '../../lib/log.js';
import type { Approval } from '../bus.js';
import type { ApprovalContent } from '../approvals.js';
import type { EventLog } from '../events.js';
import { isErrno, makeDirBelow, moveNoClobber, numbered } from '../../lib/fsx.js';
import { takeAside } from '../folders/aside.js';
import { byName } from '../folders/entries.js';
import { examine, isCandidateName, type Folder } from '../folders/inbox.js';
import { quarantine } from '../folders/rejected.js';

export interface ApprovalsOptions {
  /** pending/: a folder per direction. */
  root: string;
  rejectedDir: string;
  /** `.rejecting/`: where a leftover copy is taken aside before it is removed (folders/aside.ts). */
  asideDir: string;
  directions: readonly Direction[];
  events: EventLog;
  log: Logger;
}

export class Approvals {
  constructor(private readonly o: ApprovalsOptions) {}

  dir(d: Direction): string {
    return join(this.o.root, d.name);
  }

  /** Every approval waiting, in direction then name order. */
  async list(): Promise<Approval[]> {
    const out: Approval[] = [];
    for (const d of this.o.directions) {
      const names = await readdir(this.dir(d)).catch(() => [] as string[]);
      for (const name of names.filter(isCandidateName).sort(byName))
        out.push({ key: `${d.name}/${name}`, name, direction: d });
    }
    return out;
  }

  /**
   * Move the holder's message into the approval queue, unless its sender has one waiting already (`held`:
   * the daemon reports it, once).
   */
  async queue(f: Folder, name: string): Promise<'queued' | 'held' | 'gone'> {
    const d = f.direction;
    const waiting = await this.list();
    // A move cut short by a crash (linked, not yet unlinked): the same file is in both. Finish it.
    const ino = (await lstat(join(d.dir, name)).catch(() => null))?.ino;
    for (const p of waiting.filter((x) => x.direction.name === d.name)) {
      if (ino !== undefined && (await lstat(join(this.dir(d), p.name)).catch(() => null))?.ino === ino)
        return this.dropCopy(f, name, ino);
    }
    if (waiting.some((p) => p.direction.from === d.from)) return 'held';
    f.entries.delete(name);
    await makeDirBelow(dirname(this.o.root), this.dir(d)); // never the message folder itself (bus/anchor.ts)
    const moved = freeName(this.dir(d), name);
    try {
      await rename(join(d.dir, name), join(this.dir(d), moved));
    } catch (err) {
      if (isErrno(err, 'ENOENT')) return 'gone'; // gone meanwhile
      throw err;
    }
    this.o.log.info(`${d.name}/${name} waits for approval as pending/${d.name}/${moved}`);
    await this.o.events.emit('pending', { file: `${d.name}/${moved}`, direction: d.name, from: d.from, to: d.to });
    return 'queued';
  }

  /**
   * Remove the folder's copy of the file waiting in pending/ (`ino`) — only that: a writer may have put a
   * new message under the name since it was looked at, and that one is kept (its sender has one waiting).
   */
  private async dropCopy(f: Folder, name: string, ino: number): Promise<'held' | 'gone'> {
    f.entries.delete(name);
    const aside = join(this.o.asideDir, f.direction.name);
    if (!(await takeAside(f.direction.dir, name, aside))) return 'gone';
    const taken = join(aside, name);
    if ((await lstat(taken)).ino === ino) {
      await unlink(taken);
      return 'gone';
    }
    f.dirty.add(await moveNoClobber(taken, f.direction.dir, name));
    return 'held';
  }

  async examine(a: Approval, maxBytes: number): Promise<ApprovalContent> {
    const r = await examine({ dir: this.dir(a.direction), name: a.name, route: a.direction, maxBytes });
    if (r.kind === 'gone') return { kind: 'gone' };
    if (r.kind !== 'valid') return { kind: 'invalid', reason: r.reason };
    return { kind: 'valid', message: r.message };
  }

  /** A person refused it: rejected/, with their reason. False when it is gone. */
  async refuse(a: Approval, reason: string): Promise<boolean> {
    const d = a.direction;
    const moved = await quarantine(this.o.rejectedDir, join(this.dir(d), a.name), a.name, {
      reason,
      direction: d.name,
      from: d.from,
      to: d.to,
    });
    if (!moved) return false;
    await this.o.events.emit('rejected', { file: a.name, direction: d.name, reason, stored_as: moved });
    return true;
  }
}

/** `name`, or `m.1.json`, `m.2.json` … when taken (lib/fsx.ts): pending/ is the daemon's alone, a look decides. */
function freeName(dir: string, name: string): string {
  for (let i = 0; ; i++) {
    const candidate = numbered(name, i);
    if (!existsSync(join(dir, candidate))) return candidate;
  }
}
