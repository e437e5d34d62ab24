/**
 * Moving a file of a direction folder to rejected/ with its note, and saying so (log line, `rejected` event,
 * and the list the daemon tells the senders from) — only the file that was judged: it is taken aside first
 * and examined again there (aside.ts says why); another file found under the name goes back to its folder
 * and is looked at anew. intake.ts judges, rejecting.ts runs the moves behind the queue, this makes each.
 */
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { failpoint } from '../../lib/failpoint.js';
import { moveNoClobber } from '../../lib/fsx.js';
import { BurstLog } from '../../lib/log-burst.js';
import type { Logger } from '../../lib/log.js';
import type { EventLog } from '../events.js';
import type { Rejected } from '../queues.js';
import { type Judged, takeAside, type Verdict, verdict } from './aside.js';
import { examine, type Folder } from './inbox.js';
import { quarantine } from './rejected.js';

/**
 * What was rejected since the daemon last asked (Queues.takeRejected), kept in memory until taken: the latest
 * 100 at most, so a daemon that never asks (a one-shot answer to a person's request) holds no more.
 */
class RejectedSince {
  private items: Rejected[] = [];

  add(r: Rejected): void {
    this.items.push(r);
    if (this.items.length > 100) this.items.shift();
  }

  take(): Rejected[] {
    return this.items.splice(0);
  }
}

export interface RejectorOptions {
  maxBytes: number;
  rejectedDir: string;
  /** `.rejecting/`: a folder per direction (aside.ts). */
  asideDir: string;
  events: EventLog;
  log: Logger;
  /** `name` is back in `f` (ours, or a free name): look at it anew. */
  lookAgain: (f: Folder, name: string) => void;
}

export class Rejector {
  /** What it rejected, until the daemon takes it to tell the senders (Queues.takeRejected). */
  readonly rejected = new RejectedSince();
  /** A flood's rejections: the first of each second logged, the rest told in one line. */
  private readonly burst: BurstLog;
  /** Files left aside by a put-back that failed (their folder removed meanwhile): tried again by `retry`. */
  private readonly stuck = new Map<string, { f: Folder; name: string }>();

  constructor(private readonly o: RejectorOptions) {
    this.burst = new BurstLog((line) => o.log.warn(line), {
      first: 10,
      windowMs: 1000,
      more: (n) => `… and ${n} more rejected (each is in rejected/ with its note)`,
    });
  }

  /**
   * Move `name` from its folder `f` to rejected/ — if it is still what was judged (`judged`); a file put under
   * the name meanwhile goes back and is looked at anew, never moved with this reason.
   */
  async reject(f: Folder, name: string, reason: string, judged: Judged): Promise<void> {
    f.entries.delete(name);
    const aside = this.asideOf(f);
    if (!(await takeAside(f.direction.dir, name, aside))) return; // gone: nothing to say
    failpoint('set_aside');
    let v: Verdict;
    try {
      const known = judged.kind === 'valid' ? judged.known : null;
      const found = await examine({ dir: aside, name, route: f.direction, maxBytes: this.o.maxBytes, known });
      v = verdict(judged, found, reason);
      if (v.kind === 'reject') await this.rejectFrom(f, name, v.reason, { src: join(aside, name) });
    } catch (err) {
      await this.putBack(f, name); // still aside: never left there
      throw err;
    }
    if (v.kind === 'back') await this.putBack(f, name);
  }

  /**
   * Move `src` to rejected/ as `name` of folder `f`, with its note, and say so: a file no writer can reach
   * any more (aside, or claimed by the relay), or one judged by its name alone. `extra` goes into the note.
   */
  async rejectFrom(
    f: Folder,
    name: string,
    reason: string,
    more: { src: string | Buffer; extra?: Record<string, unknown> },
  ): Promise<void> {
    const { direction } = f;
    const note = { reason, direction: direction.name, from: direction.from, to: direction.to, ...more.extra };
    const moved = await quarantine(this.o.rejectedDir, more.src, name, note);
    if (!moved) return;
    this.burst.warn(`rejected ${direction.name}/${name}: ${reason}`);
    this.rejected.add({ direction, file: name, reason });
    await this.o.events.emit('rejected', { file: name, direction: direction.name, reason, stored_as: moved });
  }

  /**
   * A name that is not valid UTF-8 can only be reached by its bytes; it is moved under a readable name.
   * Judged by its name, whatever has the name is rejected for it: no second look.
   */
  rejectRaw(f: Folder, raw: Buffer): Promise<void> {
    const shown = raw.toString('utf8').replace(/[\uFFFD\u0000-\u001F/]/g, '_');
    const src = Buffer.concat([Buffer.from(`${f.direction.dir}/`), raw]);
    const extra = { file_name_base64: raw.toString('base64') };
    return this.rejectFrom(f, shown, 'the file name is not valid UTF-8', { src, extra });
  }

  /** Put back what a failed put-back left aside (after the folders were listed, and made again if removed). */
  async retry(): Promise<void> {
    for (const [path, { f, name }] of this.stuck) {
      this.stuck.delete(path);
      await this.putBack(f, name);
    }
  }

  flush(): void {
    this.burst.flush();
  }

  private asideOf(f: Folder): string {
    return join(this.o.asideDir, f.direction.name);
  }

  /**
   * A file taken aside goes back to its folder — under its name, or a free one when a newer file took it
   * (never replacing that one) — and is looked at anew. Should that fail, it is tried again (`retry`).
   */
  private async putBack(f: Folder, name: string): Promise<void> {
    const path = join(this.asideOf(f), name);
    try {
      this.o.lookAgain(f, await moveNoClobber(path, f.direction.dir, name));
    } catch (err) {
      if (!lstatSync(path, { throwIfNoEntry: false })) return; // not aside (moved on before a later step failed)
      this.o.log.error(`cannot put ${path} back in ${f.direction.dir}: ${String(err)}; tried again`);
      this.stuck.set(path, { f, name });
    }
  }
}
