/**
 * What a line is, for every text baton types and every reader that looks for baton's lines in it: after
 * sanitizing (compose.ts) LF is the only line break (CRLF, CR, U+2028, U+2029 become LF; NEL is removed as a C1
 * control). Readers split and anchor at LF alone — never the `m` flag. Two definitions once disagreed and a header
 * forged after U+2028 passed as real. docs/decisions/0012-one-line-break.md.
 */

/** Every line break a writer may have meant, as sanitizing turns it into LF. */
const BREAKS = /\r\n?|[\u2028\u2029]/g;

/** `text` with CRLF, CR, U+2028 and U+2029 as LF. */
export const toLF = (text: string): string => text.replace(BREAKS, '\n');

/** The lines of a text, split on LF alone. */
export const linesOf = (text: string): string[] => text.split('\n');

/** The first line of a text (up to its first LF). */
export const firstLine = (text: string): string => linesOf(text)[0] ?? '';

/** A pattern source matching where a line starts (the text's start or after an LF): instead of `^` with `m`. */
export const LINE_START = '(?<![^\\n])';
