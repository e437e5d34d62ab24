/**
 * lib/shell.ts: one word for a POSIX shell, with nothing in it expanded. Checked as written, and read back
 * by a reader of the only quoting it may use (single quotes, and \' between them), so no character of
 * the word is ever left where a shell would interpret it.
 */
import { describe, expect, it } from 'vitest';
import { shellQuote } from '../../../src/lib/shell.js';

/** A shell's reading of a word made of '…' runs and \x escapes; anything else bare is refused. */
function readWord(quoted: string): string {
  let out = '';
  for (let i = 0; i < quoted.length; ) {
    if (quoted[i] === "'") {
      const end = quoted.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unterminated quote in ${quoted}`);
      out += quoted.slice(i + 1, end);
      i = end + 1;
    } else if (quoted[i] === '\\' && i + 1 < quoted.length) {
      out += quoted[i + 1];
      i += 2;
    } else throw new Error(`a bare ${JSON.stringify(quoted[i])} in ${quoted}`);
  }
  return out;
}

describe('a word for the shell', () => {
  it('is single-quoted', () => {
    expect(shellQuote('claude')).toBe("'claude'");
    expect(shellQuote('')).toBe("''");
    expect(shellQuote('/opt/my tools/codex')).toBe("'/opt/my tools/codex'");
  });

  it('a single quote inside closes the quote, adds an escaped one, and opens it again', () => {
    expect(shellQuote("it's")).toBe("'it'\\''s'");
    expect(shellQuote("'")).toBe("''\\'''");
  });

  it('reads back as exactly the word, whatever it holds', () => {
    const words = [
      '',
      "it's",
      "''",
      "'; rm -rf ~; echo '",
      '$(touch /tmp/x) `id` $HOME',
      'a\\b\\\\c',
      'line one\nline two\ttab',
      '"double" and !history *glob* ?[a]',
      'unicode: café — ✓',
    ];
    for (const w of words) expect(readWord(shellQuote(w)), JSON.stringify(w)).toBe(w);
  });
});
