/**
 * An agent's outgoing folder, written the way an agent writes it (docs/protocol.md §3): one message file,
 * created atomically (a temp file, then a link into place, so a reader never sees half of it and nothing
 * is overwritten) under a name of its own that sorts by time. `baton post` writes here on the files bus,
 * and on the PostgreSQL bus for an agent of this machine, whose daemon relays the folder (postgres/relay.ts).
 */
import { join } from 'node:path';
import type { Direction } from '../../config/config.js';
import { validateMessage } from '../../core/message.js';
import { createAtomic, ensureDir } from '../../lib/fsx.js';
import type { Posted } from '../queues.js';

/** `msg_<epoch-ns>.json`: sorts by time, as docs/protocol.md §3 suggests. */
export function fileName(): string {
  const ns = BigInt(Math.round((performance.timeOrigin + performance.now()) * 1000)) * 1000n;
  return `msg_${ns}.json`;
}

/**
 * The file as it will be written, checked as the daemon's intake checks a file (inbox.ts): its bytes
 * against max_bytes, then the message for its folder. The reason is the one the daemon would give.
 */
export function checkFile(text: string, d: Direction, maxBytes: number): string | null {
  const size = Buffer.byteLength(text);
  if (size > maxBytes) return `${size} bytes is over inbox.max_bytes (${maxBytes})`;
  const r = validateMessage(JSON.parse(text), d);
  return r.ok ? null : r.reason;
}

/** Write `message` into `d`'s folder, unless the daemon would reject it (then nothing is written). */
export async function postToFolder(d: Direction, message: Record<string, unknown>, maxBytes: number): Promise<Posted> {
  const text = `${JSON.stringify(message, null, 2)}\n`;
  const bad = checkFile(text, d, maxBytes);
  if (bad) return { kind: 'refused', reason: bad };
  await ensureDir(d.dir);
  for (;;) {
    const name = fileName();
    const where = join(d.dir, name);
    if (await createAtomic(where, text)) return { kind: 'posted', name, where };
  }
}
