/** What a reader lists from disk on request (the dashboard): rejected files with their reasons, and approvals. */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../../config/config.js';
import type { ApprovalView, Rejection } from '../bus.js';
import { listInbox } from '../folders/inbox.js';
import type { Layout } from './layout.js';
import { notePath, storedRejections } from '../folders/rejected.js';

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** The newest `limit` rejections (by the note's time), with why each was refused. */
export async function listRejected(dir: string, limit: number): Promise<{ count: number; items: Rejection[] }> {
  const stored = await storedRejections(dir);
  const dated = await Promise.all(
    stored.map(async (n) => ({
      n,
      t: (await stat(notePath(dir, n)).catch(() => null))?.mtimeMs ?? 0,
    })),
  );
  dated.sort((a, b) => b.t - a.t);
  const items = await Promise.all(
    dated.slice(0, limit).map(async ({ n }): Promise<Rejection> => {
      let note: Record<string, unknown> = {};
      try {
        note = JSON.parse(await readFile(notePath(dir, n), 'utf8')) as Record<string, unknown>;
      } catch {
        // An unreadable note still lists the file.
      }
      return {
        stored_as: n,
        file: str(note.file),
        reason: str(note.reason),
        direction: str(note.direction),
        rejected_at: str(note.rejected_at),
      };
    }),
  );
  return { count: stored.length, items };
}

/** Moderated mode: the messages waiting for approval, with what they say (capped), in order. */
export async function listApprovals(config: Config, l: Layout, cap: number): Promise<ApprovalView[]> {
  const out: ApprovalView[] = [];
  for (const d of config.directions) {
    for (const name of (await listInbox(join(l.pending, d.name))).names) {
      let m: Record<string, unknown> = {};
      try {
        m = JSON.parse(await readFile(join(l.pending, d.name, name), 'utf8')) as Record<string, unknown>;
      } catch {
        continue; // approved or rejected meanwhile
      }
      const content = str(m.content) ?? '';
      out.push({
        file: `${d.name}/${name}`,
        from: d.from,
        to: d.to,
        type: str(m.type),
        subject: str(m.subject),
        content: content.slice(0, cap),
      });
    }
  }
  return out;
}
