/** What the dashboard lists from disk on request: rejected files with their reasons, and pending messages. */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../config.js';
import { listInbox } from '../inbox.js';
import { layout } from '../layout.js';
import { notePath, storedRejections } from '../rejected.js';
import type { PendingItem, RejectedItem } from './api.js';

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** The newest `limit` rejections (by the note's time), with why each was refused. */
export async function listRejected(config: Config, limit: number): Promise<{ count: number; items: RejectedItem[] }> {
  const dir = layout(config).rejected;
  const stored = await storedRejections(dir);
  const dated = await Promise.all(stored.map(async (n) => ({ n, t: await stat(notePath(dir, n)).then((s) => s.mtimeMs, () => 0) })));
  dated.sort((a, b) => b.t - a.t);
  const items = await Promise.all(
    dated.slice(0, limit).map(async ({ n }): Promise<RejectedItem> => {
      let note: Record<string, unknown> = {};
      try {
        note = JSON.parse(await readFile(notePath(dir, n), 'utf8')) as Record<string, unknown>;
      } catch {
        // An unreadable note still lists the file.
      }
      return { stored_as: n, file: str(note.file), reason: str(note.reason), direction: str(note.direction), rejected_at: str(note.rejected_at) };
    }),
  );
  return { count: stored.length, items };
}

/** Moderated mode: the messages waiting for approval, with what they say (capped), in order. */
export async function listPending(config: Config, cap = 16 * 1024): Promise<PendingItem[]> {
  const l = layout(config);
  const out: PendingItem[] = [];
  for (const d of config.directions) {
    for (const name of (await listInbox(join(l.pending, d.name))).names) {
      let m: Record<string, unknown> = {};
      try {
        m = JSON.parse(await readFile(join(l.pending, d.name, name), 'utf8')) as Record<string, unknown>;
      } catch {
        continue; // approved or rejected meanwhile
      }
      const content = str(m.content) ?? '';
      out.push({ file: `${d.name}/${name}`, from: d.from, to: d.to, type: str(m.type), subject: str(m.subject), content: content.slice(0, cap) });
    }
  }
  return out;
}
