/**
 * rejected/: where bad files go, each with `<name>.error.json` beside it saying why (SPEC §6).
 * Nothing there is ever overwritten: a taken name gets a numeric suffix (`m.json` → `m.1.json`).
 */
import { existsSync } from 'node:fs';
import { rename } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { writeAtomic } from './fsx.js';

export interface Rejection {
  /** Name the file now has in rejected/. */
  name: string;
  path: string;
}

function freeName(dir: string, name: string): string {
  const ext = extname(name);
  const stem = name.slice(0, name.length - ext.length);
  for (let i = 0; ; i++) {
    const candidate = i === 0 ? name : `${stem}.${i}${ext}`;
    if (!existsSync(join(dir, candidate)) && !existsSync(join(dir, `${candidate}.error.json`))) return candidate;
  }
}

/**
 * Move `src` (a file, link, FIFO or directory — it is moved, never opened) into rejected/ and write the
 * reason beside it. Returns null if the file vanished before it could be moved.
 */
export async function quarantine(
  rejectedDir: string,
  src: string,
  name: string,
  details: { reason: string; direction?: string; [key: string]: unknown },
): Promise<Rejection | null> {
  const target = freeName(rejectedDir, name);
  const path = join(rejectedDir, target);
  try {
    await rename(src, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const note = { file: name, ...details, rejected_at: new Date().toISOString(), stored_as: target };
  await writeAtomic(join(rejectedDir, `${target}.error.json`), `${JSON.stringify(note, null, 2)}\n`);
  return { name: target, path };
}
