/**
 * A PostgreSQL conversation's default name (docs/protocol.md §10): the config folder's name, every character but
 * KEPT percent-encoded as UTF-8 — injective (all to "_" made `日本` and `中国` one conversation); never "/" or "@".
 * docs/decisions/0009-state-a-person-can-break.md.
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
