/**
 * What a pane is told to read with `baton show`, kept where that pane can read it (docs/trust.md). A shell-kind agent
 * gets only a line naming its message (a shell would run the content); a catch-up names what it cut the same way.
 * On the PostgreSQL bus a pane never holds the database's password, so that hint failed in the very pane it was typed
 * into: the daemon writes a copy of each record it names to a local pane into `message_dir/.shown/<id>.json` just
 * before typing the name, and `baton show` without the database reads it — never the database's other conversations.
 * Not the daemon answering `baton show`: that needs it running and a new way in for a pane; `cat` reads a copy too.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../config/config.js';
import type { ArchiveRecord } from '../core/record.js';
import { writeAtomic } from '../lib/fsx.js';
import type { Logger } from '../lib/log.js';

/** Where the copies are: a dot-folder, so no direction folder can be named like it. */
export const shownDir = (config: Pick<Config, 'messageDir'>): string => join(config.messageDir, '.shown');

/** The copy of record `id` in `dir`, or null when there is none (or it is not that record). */
export async function readShown(dir: string, id: string): Promise<ArchiveRecord | null> {
  try {
    const r = JSON.parse(await readFile(join(dir, `${id}.json`), 'utf8')) as ArchiveRecord;
    return r && typeof r === 'object' && r.id === id && typeof r.content === 'string' ? r : null;
  } catch {
    return null;
  }
}

/** The part the typing pipeline calls before it types a text that names records for `baton show`. */
export type Shown = { keep(ids: readonly string[]): Promise<void> };

/**
 * Copies read from the bus, each written whole (a reader sees the old copy or the new, never a part). Its
 * folder is made once, and the records a text names are read and written side by side: a catch-up names
 * up to a dozen, and one after another they held the paste back by a database round trip each.
 */
class ShownCopies implements Shown {
  private made = false;

  constructor(
    private readonly dir: string,
    private readonly records: { record(id: string): Promise<ArchiveRecord | null> },
    private readonly log: Logger,
  ) {}

  async keep(ids: readonly string[]): Promise<void> {
    if (!ids.length) return;
    try {
      if (!this.made) {
        // Not recursive: a message folder moved away is never made again (bus/anchor.ts).
        await mkdir(this.dir).catch((err: NodeJS.ErrnoException) => {
          if (err.code !== 'EEXIST') throw err;
        });
        this.made = true;
      }
      await Promise.all(
        [...new Set(ids)].map(async (id) => {
          const r = await this.records.record(id);
          // Written again each time: after `up --fresh` an ID names another conversation's message.
          if (r) await writeAtomic(join(this.dir, `${id}.json`), `${JSON.stringify(r, null, 2)}\n`);
        }),
      );
    } catch (err) {
      // The message still goes: the pane is told its name, and a person's `baton show` reads the database.
      // A folder removed meanwhile is made again next time (and refused there if it was moved, above).
      this.made = false;
      this.log.warn(`cannot keep a copy for baton show in ${this.dir}: ${(err as Error).message}`);
    }
  }
}

/** The pipeline's copies: on the PostgreSQL bus only — on the files bus every pane reads the archive itself. */
export function shownParts(
  config: Pick<Config, 'messageDir' | 'bus'>,
  records: { record(id: string): Promise<ArchiveRecord | null> },
  log: Logger,
): { shown?: Shown } {
  return config.bus.kind === 'postgres' ? { shown: new ShownCopies(shownDir(config), records, log) } : {};
}
