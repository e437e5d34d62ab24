/**
 * Moderated mode on the files bus (docs/protocol.md §9): the turn holder's valid message waits in
 * `pending/<direction>/<name>` with no ID yet and no change to the state, until a person approves it
 * (its turn step is then committed from here) or refuses it (rejected/, with the person's reason).
 * One per sender: the next one is held in its folder. A move cut short by a crash (the same file linked
 * in both folders) is finished at the next look instead of leaving a second copy to approve.
 */
import { lstat, readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Direction } from '../../config/config.js';
import type { Logger } from '../../lib/log.js';
import type { Approval } from '../bus.js';
import type { EventLog } from '../events.js';
import { ensureDir, isErrno, moveNoClobber } from '../../lib/fsx.js';
import { byName, examine, isCandidateName, type Entry, type Folder } from './inbox.js';
import { quarantine } from './rejected.js';

export interface ApprovalsOptions {
  /** pending/: a folder per direction. */
  root: string;
  rejectedDir: string;
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
      if (ino !== undefined && (await lstat(join(this.dir(d), p.name)).catch(() => null))?.ino === ino) {
        f.entries.delete(name);
        await unlink(join(d.dir, name)).catch(() => {});
        return 'gone';
      }
    }
    if (waiting.some((p) => p.direction.from === d.from)) return 'held';
    f.entries.delete(name);
    await ensureDir(this.dir(d));
    const moved = await moveNoClobber(join(d.dir, name), this.dir(d), name).catch((err: unknown) => {
      if (isErrno(err, 'ENOENT')) return null; // gone meanwhile
      throw err;
    });
    if (moved === null) return 'gone';
    this.o.log.info(`${d.name}/${name} waits for approval as pending/${d.name}/${moved}`);
    await this.o.events.emit('pending', { file: `${d.name}/${moved}`, direction: d.name, from: d.from, to: d.to });
    return 'queued';
  }

  async examine(
    a: Approval,
    maxBytes: number,
  ): Promise<
    { kind: 'valid'; message: NonNullable<Entry['message']> } | { kind: 'gone' } | { kind: 'invalid'; reason: string }
  > {
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
    await this.o.events.emit('rejected', { file: a.name, direction: d.name, reason, stored_as: moved.name });
    return true;
  }
}
