/**
 * A PostgreSQL conversation's name (docs/protocol.md §10: `bus.conversation`, by default the config
 * folder's name). The default used to map every character but ASCII letters, digits, ".", "_" and "-" to
 * "_": folders `日本` and `中国` were both conversation `__`, `review 42` and `review_42` one conversation —
 * and one project's `baton log` showed the other's messages.
 *
 * Now the default keeps every letter and digit of any script (and combining marks), ".", "_" and "-", and
 * writes every other character as its UTF-8 bytes in percent-encoding (`review 42` → `review%2042`, `%`
 * itself → `%25`): readable, and injective — two folder names never give one conversation name. A name
 * the old default gave unchanged (ASCII letters, digits, ".", "_", "-") is the same name now, so those
 * conversations go on; one with other characters gets its new name (pin the old one with `bus.conversation`).
 * No name has "/" or "@": the bus writes `schema/name` and `name@time` (sql/index.ts, `up --fresh`).
 */

/** What a name keeps as it is: letters, combining marks and digits of any script, ".", "_" and "-". */
const KEPT = /^[\p{L}\p{M}\p{N}._-]$/u;

/** What an explicit `bus.conversation` may be: what a default can be (kept characters, %XX escapes). */
export const CONVERSATION_NAME = /^(?:[\p{L}\p{M}\p{N}._-]|%[0-9A-Fa-f]{2}){1,255}$/u;

/** The conversation name a folder gives by default. */
export function conversationName(folder: string): string {
  let out = '';
  for (const ch of folder) {
    if (KEPT.test(ch)) out += ch;
    else for (const byte of Buffer.from(ch, 'utf8')) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}
