/**
 * What PostgreSQL cannot hold (sql/codec.ts): text and JSON text encoded on the way in and decoded on the
 * way out give back every string exactly, encode nothing in ordinary text, and leave nothing the server
 * refuses (NUL, a lone surrogate, a `\u0000` or surrogate escape in JSON).
 */
import { describe, expect, it } from 'vitest';
import {
  decodeJson,
  decodeText,
  encodeJson,
  encodeParam,
  encodeText,
  Json,
} from '../../../../src/bus/postgres/sql/codec.js';

/** What the server would refuse or change: NUL, a lone surrogate; in JSON text, their escapes too. */
const refusedText = (s: string) =>
  /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);
const refusedJson = (s: string) => refusedText(s) || /(?<!\\)(?:\\\\)*\\u(0000|[dD][89a-fA-F][0-9a-fA-F]{2})/.test(s);

const PIECES = [
  'a',
  'é',
  '🐈',
  '\u0000',
  '\ud800',
  '\udfff',
  '\ufdd0',
  'fdd0',
  '0041',
  'd800',
  '\\',
  'u',
  '"',
  '\n',
  '\ud83d',
  '\ude00',
];

/** Every string of up to four pieces: pairs split and joined, escapes next to look-alikes. */
function* strings(): Generator<string> {
  const n = PIECES.length;
  for (let len = 0; len <= 3; len++)
    for (let i = 0; i < n ** len; i++) {
      let s = '';
      for (let k = 0, j = i; k < len; k++, j = Math.floor(j / n)) s += PIECES[j % n];
      yield s;
    }
}

describe('the PostgreSQL codec', () => {
  it('text: decoded gives back exactly what was encoded; nothing the server refuses is left', () => {
    const seen = new Map<string, string>();
    for (const s of strings()) {
      const e = encodeText(s);
      expect(refusedText(e), JSON.stringify(s)).toBe(false);
      expect(decodeText(e)).toBe(s);
      expect(seen.get(e) ?? s, 'injective').toBe(s);
      seen.set(e, s);
    }
  });

  it('JSON: a value written as JSON text reads back as that value, through encode and decode', () => {
    for (const s of strings()) {
      const value = { [s]: [s, { k: s }] };
      const e = encodeJson(JSON.stringify(value));
      expect(refusedJson(e), JSON.stringify(s)).toBe(false);
      expect(JSON.parse(decodeJson(e))).toEqual(value);
    }
  });

  it('a jsonb string read back as text (->>) decodes to the value written', () => {
    for (const s of strings()) {
      // What the server stores for the JSON string: the parsed value of the encoded JSON text.
      const stored = JSON.parse(encodeJson(JSON.stringify(s))) as string;
      expect(decodeText(stored)).toBe(s);
    }
  });

  it('ordinary text and JSON go through unchanged', () => {
    for (const s of ['', 'hello', 'ねこ 🐈 é \\u0041 \\\\u0000 \t\n', JSON.stringify({ a: 'x\\u0000', b: '\u00e9' })]) {
      expect(encodeText(s)).toBe(s);
      expect(encodeJson(s)).toBe(s);
      expect(decodeText(s)).toBe(s);
      expect(decodeJson(s)).toBe(s);
    }
  });

  it('parameters: text as text, Json as JSON, arrays element by element, anything else as it is', () => {
    expect(encodeParam('a\u0000')).toBe('a\ufdd00000');
    expect(encodeParam(Json.of({ a: 'x\u0000' }))).toBe('{"a":"x\ufdd00000"}');
    expect(encodeParam(['\ud800', 'b'])).toEqual(['\ufdd0d800', 'b']);
    expect(encodeParam(7)).toBe(7);
    expect(encodeParam(null)).toBe(null);
  });
});
