/** One word for a POSIX shell: single-quoted, so nothing in it is expanded (`it's` → `'it'\''s'`). */
export const shellQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
