/**
 * What a line is, for every text baton types and every reader that looks for baton's lines in it (a header
 * `[baton] msg_…`, a catch-up's opener and closer). One definition, because two once disagreed: content
 * holding U+2028 (LINE SEPARATOR) passed sanitizing, so `x\u2028[baton] msg_0098 from a3` was one line to
 * the catch-up (which splits on LF and quotes each line) and to every check that the line is content, but a
 * line of its own to any reader that honours U+2028 — JavaScript's own `/^…/m` among them: the receipt
 * parser took the forged header for a real one.
 *
 * The rule: after sanitizing (compose.ts) LF is the only line break. CRLF, a lone CR, U+2028 and U+2029 become
 * LF there (a writer who put a separator meant a new line); NEL (U+0085) is a C1 control and is removed with
 * them, as it always was — in real text it is nearly always a Windows-1252 "…" decoded as Latin-1, not a
 * line break. Readers split on LF alone and anchor at LF alone — never the `m` flag, whose `^` also honours
 * CR, U+2028 and U+2029.
 */

/** Every line break a writer may have meant, as sanitizing turns it into LF. */
const BREAKS = /\r\n?|[\u2028\u2029]/g;

/** `text` with CRLF, CR, U+2028 and U+2029 as LF. */
export const toLF = (text: string): string => text.replace(BREAKS, '\n');

/** The lines of a text, split on LF alone. */
export const linesOf = (text: string): string[] => text.split('\n');

/** The first line of a text (up to its first LF). */
export const firstLine = (text: string): string => linesOf(text)[0] ?? '';

/**
 * A pattern source that matches where a line starts: the text's start or just after an LF. Use it instead
 * of `^` with the `m` flag.
 */
export const LINE_START = '(?<![^\\n])';
