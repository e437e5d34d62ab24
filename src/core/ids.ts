/**
 * Message IDs, the one place that knows their format. `msg_0001` … `msg_9999`, `msg_10000`: four digits at
 * least, never truncated (docs/protocol.md §4). A person's messages count on their own as `user_0001` ….
 */

export type IdPrefix = 'msg' | 'user';

export function formatId(counter: number, prefix: IdPrefix = 'msg'): string {
  return `${prefix}_${String(counter).padStart(4, '0')}`;
}

const PATTERNS: Record<IdPrefix, RegExp> = { msg: /^msg_(\d{4,})$/, user: /^user_(\d{4,})$/ };

/** The counter inside an ID (`msg_0042` → 42), or null when the string is not an ID with that prefix. */
export function parseId(id: string, prefix: IdPrefix = 'msg'): number | null {
  const m = PATTERNS[prefix].exec(id);
  return m ? Number(m[1]) : null;
}

/** An agent's message ID or a person's (`msg_0001`, `user_0001`). */
export const isRecordId = (id: string): boolean => parseId(id) !== null || parseId(id, 'user') !== null;

/** For zod schemas and URL routes: an agent message ID, as a pattern source. */
export const MESSAGE_ID_SOURCE = 'msg_\\d{4,}';
/** Either kind of ID, as a pattern source. */
export const RECORD_ID_SOURCE = '(?:msg|user)_\\d{4,}';

/**
 * An ID as a person types it: `msg_0007`, `msg_7` or `7` (an agent's message), `user_0001` or `user_1` (a
 * person's); the ID as stored, or null.
 */
export function recordIdOf(typed: string): string | null {
  const m = /^(?:(msg|user)_)?(\d{1,9})$/.exec(typed.trim());
  if (!m) return null;
  return formatId(Number(m[2]), (m[1] ?? 'msg') as IdPrefix);
}

/**
 * What `baton show` takes: one ID, or a range `msg_0004..msg_0009` (either end as recordIdOf reads it, both
 * of one kind, the first not after the last): the IDs in order, or why not.
 */
export function recordIdsOf(typed: string): { ok: true; ids: string[] } | { ok: false; why: string } {
  const [a, b, ...more] = typed.split('..');
  const notId = (s: string | undefined) => ({
    ok: false as const,
    why: `"${s}" is not a message ID (msg_0007, 7, user_0001)`,
  });
  if (more.length) return { ok: false, why: `"${typed}" is not an ID or a range (msg_0004..msg_0009)` };
  const from = recordIdOf(a ?? '');
  if (!from) return notId(a);
  if (b === undefined) return { ok: true, ids: [from] };
  const prefix = from.split('_')[0] as IdPrefix;
  const to = recordIdOf(/^\d+$/.test(b.trim()) ? `${prefix}_${b.trim()}` : b);
  if (!to) return notId(b);
  if (to.split('_')[0] !== prefix) return { ok: false, why: `a range is of one kind: ${from}..${to}` };
  const [lo, hi] = [parseId(from, prefix)!, parseId(to, prefix)!];
  if (lo > hi) return { ok: false, why: `${from} comes after ${to}` };
  return { ok: true, ids: Array.from({ length: hi - lo + 1 }, (_, i) => formatId(lo + i, prefix)) };
}
