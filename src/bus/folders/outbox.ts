/**
 * An agent's outgoing folder, written the way an agent writes it (docs/protocol.md §3): one message file,
 * created atomically (a temp file, then a link into place, so a reader never sees half of it and nothing
 * is overwritten) under a name of its own that sorts by time. `baton post` writes here on the files bus,
 * and on the PostgreSQL bus for an agent of this machine, whose daemon relays the folder (postgres/relay.ts).
 */
import { join } from 'node:path';
import type { Direction } from '../../config/config.js';
import { validateMessage, type ParseResult } from '../../core/message.js';
import { createAtomic, ensureDir } from '../../lib/fsx.js';
import type { Posted } from '../queues.js';

/** `msg_<epoch-ns>.json`: sorts by time, as docs/protocol.md §3 suggests. */
export function fileName(): string {
  const ns = BigInt(Math.round((performance.timeOrigin + performance.now()) * 1000)) * 1000n;
  return `msg_${ns}.json`;
}

/**
 * A message's text checked as the daemon's intake checks a file (inbox.ts): its bytes against max_bytes,
 * then JSON, then the message for its folder, with the reason the daemon would give. Both buses check a
 * post with it before storing anything, and the PostgreSQL bus a stored body before its turn step.
 */
export function checkText(text: string, d: Direction, maxBytes: number): ParseResult {
  const size = Buffer.byteLength(text);
  if (size > maxBytes) return { ok: false, reason: `${size} bytes is over inbox.max_bytes (${maxBytes})` };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, reason: `invalid JSON: ${(err as Error).message}` };
  }
  return validateMessage(value, d);
}

/** Write `message` into `d`'s folder, unless the daemon would reject it (then nothing is written). */
export async function postToFolder(d: Direction, message: Record<string, unknown>, maxBytes: number): Promise<Posted> {
  const text = `${JSON.stringify(message, null, 2)}\n`;
  const checked = checkText(text, d, maxBytes);
  if (!checked.ok) return { kind: 'refused', reason: checked.reason };
  await ensureDir(d.dir);
  for (;;) {
    const name = fileName();
    const where = join(d.dir, name);
    if (await createAtomic(where, text)) return { kind: 'posted', name, where };
  }
}
