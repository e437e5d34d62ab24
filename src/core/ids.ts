/**
 * Message IDs, the one place that knows their format (the ID regex was once copied into four modules).
 * `msg_0001` … `msg_9999`, `msg_10000`: four digits at least, never truncated (docs/protocol.md §4). A person's
 * messages count on their own as `user_0001` ….
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
