/**
 * core/json-prefix.ts: a file that does not parse is rejected at once only when no byte appended could
 * make it a JSON text. The promise that matters most is the safe one: a prefix of a valid text — what a
 * slow writer leaves on disk at any moment — is never called impossible. Checked here on every byte prefix
 * of many texts (random values, every way of writing a number, escapes, every UTF-8 length, a BOM), and
 * against the two strict judges there are: JSON.parse and a fatal UTF-8 decoder. The counts are
 * test/helpers/fuzz.ts's: a fifth of the texts by default, all of them under BATON_FUZZ=long.
 */
import { describe, expect, it } from 'vitest';
import { jsonPrefix } from '../../../src/core/json-prefix.js';
import { fuzz } from '../../helpers/fuzz.js';

const bytes = (s: string | number[]) => (typeof s === 'string' ? new TextEncoder().encode(s) : Uint8Array.from(s));
const judge = (s: string | number[]) => jsonPrefix(bytes(s));
const BOM = [0xef, 0xbb, 0xbf];

/** mulberry32, seeded: the same texts on every run. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  return { next, int, pick };
}
type Rand = ReturnType<typeof prng>;

const PIECES = ['a', 'é', 'ß', 'ねこ', '🐈', '\u0080', '\u07ff', '\u0800', '\ud7ff', '\ue000', '\uffff', '\u{10ffff}'];
const NUMBERS = [
  '0',
  '-0',
  '7',
  '-12',
  '0.5',
  '-0.25',
  '1e5',
  '1E+5',
  '2e-3',
  '-1.5e10',
  '12345678901234567890',
  '0e0',
];

/** A random value, written out by hand: random whitespace, escapes and number forms JSON.stringify never makes. */
function text(r: Rand, depth: number): string {
  const ws = () => r.pick(['', '', ' ', '\n', '\t', '\r\n', '  ']);
  const str = () => {
    let s = '"';
    for (let n = r.int(0, 6); n > 0; n--)
      s += r.pick([
        ...PIECES,
        '\\"',
        '\\\\',
        '\\/',
        '\\b',
        '\\f',
        '\\n',
        '\\r',
        '\\t',
        '\\u00e9',
        '\\uD83D\\uDC08',
        '\\u0000',
      ]);
    return `${s}"`;
  };
  const c = r.int(0, depth > 0 ? 6 : 3);
  if (c === 0) return r.pick(['true', 'false', 'null']);
  if (c === 1) return r.pick(NUMBERS);
  if (c <= 3) return str();
  if (c === 4)
    return `[${ws()}${Array.from({ length: r.int(0, 4) }, () => `${ws()}${text(r, depth - 1)}${ws()}`).join(',')}]`;
  const members = Array.from(
    { length: r.int(0, 4) },
    () => `${ws()}${str()}${ws()}:${ws()}${text(r, depth - 1)}${ws()}`,
  );
  return `{${ws()}${members.join(',')}}`;
}

/** Every byte prefix of `b` except the whole. */
const prefixes = (b: Uint8Array) => Array.from({ length: b.length }, (_, n) => b.subarray(0, n));

describe('prefixes of valid texts', () => {
  it('every prefix of random texts is partial, never impossible; each whole text is complete', () => {
    const r = prng(20261126);
    for (let k = 0, n = fuzz(400, 2000); k < n; k++) {
      const t = k % 3 ? `{"content": ${text(r, 3)}}` : text(r, 4);
      expect(() => JSON.parse(t)).not.toThrow(); // the generator writes valid JSON only
      const b = bytes([...(k % 7 === 0 ? BOM : []), ...new TextEncoder().encode(t + (k % 5 ? '' : ' \n'))]);
      for (const p of prefixes(b)) {
        const got = jsonPrefix(p);
        if (got.kind === 'impossible')
          throw new Error(`${JSON.stringify(t)}: its prefix of ${p.length} bytes judged impossible`);
      }
      const whole = jsonPrefix(b);
      const topNumber = /^-?\d/.test(t) && k % 5 !== 0; // a bare number at the end: a digit may still follow
      expect(whole.kind, t).toBe(topNumber ? 'partial' : 'complete');
    }
  });

  it('names the top value, and none while there is only whitespace or part of a BOM', () => {
    expect(judge('')).toEqual({ kind: 'partial', top: null });
    expect(judge(' \n\t\r ')).toEqual({ kind: 'partial', top: null });
    expect(judge([0xef])).toEqual({ kind: 'partial', top: null });
    expect(judge([0xef, 0xbb])).toEqual({ kind: 'partial', top: null });
    expect(judge([...BOM])).toEqual({ kind: 'partial', top: null });
    expect(judge([...BOM, 0x7b])).toEqual({ kind: 'partial', top: 'object' });
    expect(judge('{"content": "cut off')).toEqual({ kind: 'partial', top: 'object' });
    expect(judge('{"content": "x"')).toEqual({ kind: 'partial', top: 'object' });
    expect(judge('{"content"')).toEqual({ kind: 'partial', top: 'object' });
    expect(judge('{"content": "\\u00')).toEqual({ kind: 'partial', top: 'object' });
    expect(judge('{"a": tr')).toEqual({ kind: 'partial', top: 'object' });
    expect(judge('{"a": -')).toEqual({ kind: 'partial', top: 'object' });
    expect(judge('{"a": 1.')).toEqual({ kind: 'partial', top: 'object' });
    expect(judge('{"a": 1e+')).toEqual({ kind: 'partial', top: 'object' });
    expect(judge('{"a": 12')).toEqual({ kind: 'partial', top: 'object' });
    expect(judge('[1, ')).toEqual({ kind: 'partial', top: 'array' });
    expect(judge('"abc')).toEqual({ kind: 'partial', top: 'string' });
    expect(judge('12')).toEqual({ kind: 'partial', top: 'number' });
    expect(judge('nul')).toEqual({ kind: 'partial', top: 'literal' });
    expect(judge('{"a": 1}')).toEqual({ kind: 'complete', top: 'object' });
    expect(judge('{"a": 1} \n')).toEqual({ kind: 'complete', top: 'object' });
    expect(judge('[]')).toEqual({ kind: 'complete', top: 'array' });
    expect(judge('12 ')).toEqual({ kind: 'complete', top: 'number' });
    expect(judge('null')).toEqual({ kind: 'complete', top: 'literal' });
    expect(judge('"x"')).toEqual({ kind: 'complete', top: 'string' });
  });

  it('a UTF-8 character cut anywhere is partial, for every length of character', () => {
    for (const ch of ['é', '\u07ff', '\u0800', 'ね', '\ud7ff', '\ue000', '\uffff', '🐈', '\u{10000}', '\u{10ffff}']) {
      const b = bytes(`{"content": "${ch}"}`);
      for (const p of prefixes(b)) expect(jsonPrefix(p).kind, `${ch}, ${p.length} bytes`).toBe('partial');
    }
  });

  it('nesting as deep as the bytes allow, without recursion', () => {
    const n = fuzz(100_000, 1_000_000); // either is far past the depth where a recursive parser overflows
    expect(judge(`${'['.repeat(n)}`)).toEqual({ kind: 'partial', top: 'array' });
    expect(judge(`${'['.repeat(n)}${']'.repeat(n)}`)).toEqual({ kind: 'complete', top: 'array' });
    expect(judge(`{"a":${'{"b":'.repeat(n)}1${'}'.repeat(n)}}`)).toEqual({ kind: 'complete', top: 'object' });
  });
});

describe('what can never become a JSON text', () => {
  const impossible: Array<[string | number[], number, 'utf8' | 'syntax' | 'trailing']> = [
    ['hello', 0, 'syntax'],
    ['garbage {"content": "x"}', 0, 'syntax'],
    ["{'content': 'x'}", 1, 'syntax'],
    ['{"content": "x",}', 16, 'syntax'],
    ['{"content" "x"}', 11, 'syntax'],
    ['{"content": "x"}{"content": "y"}', 16, 'trailing'],
    ['{"content": "x"} x', 17, 'trailing'],
    ['{"a": 1] ', 7, 'syntax'],
    ['[1}', 2, 'syntax'],
    ['[,', 1, 'syntax'],
    ['{,', 1, 'syntax'],
    ['{"a":1,}', 7, 'syntax'],
    ['{"a": 01}', 7, 'syntax'],
    ['{"a": +1}', 6, 'syntax'],
    ['{"a": .5}', 6, 'syntax'],
    ['{"a": 1.e5}', 8, 'syntax'],
    ['{"a": 1e}', 8, 'syntax'],
    ['{"a": -x', 7, 'syntax'],
    ['{"a": NaN}', 6, 'syntax'],
    ['{"a": tru}', 9, 'syntax'],
    ['{"a": nulll}', 10, 'syntax'],
    ['{"a": "\\x"}', 8, 'syntax'],
    ['{"a": "\\u12g4"}', 11, 'syntax'],
    ['{"content": "x\u0000y"}', 14, 'syntax'], // a raw control character
    ['{"content": "a\nb"}', 14, 'syntax'],
    ['{"content": "a\u001fb"}', 14, 'syntax'],
    ['01', 1, 'trailing'],
    ['{} {}', 3, 'trailing'],
    [[...BOM, ...BOM], 3, 'syntax'],
    [[0x20, ...BOM], 1, 'syntax'], // a BOM only at the very start
    [[0xef, 0x7b], 1, 'syntax'],
    [[0x7b, 0x22, 0xff], 2, 'utf8'],
    [[0x7b, 0x22, 0x80], 2, 'utf8'],
    [[0x7b, 0x22, 0xc0, 0x80], 2, 'utf8'], // overlong
    [[0x7b, 0x22, 0xc3, 0x41], 3, 'utf8'], // a lead byte without its continuation
    [[0x7b, 0x22, 0xe0, 0x80, 0x80], 3, 'utf8'], // overlong
    [[0x7b, 0x22, 0xed, 0xa0, 0x80], 3, 'utf8'], // a surrogate
    [[0x7b, 0x22, 0xf4, 0x90, 0x80, 0x80], 3, 'utf8'], // past U+10FFFF
    [[0x7b, 0x22, 0xf5], 2, 'utf8'],
    [[0x7b, 0x22, 0xe3, 0x81, 0x22], 4, 'utf8'], // cut before the quote that ends the string
    [[0xc3, 0xa9], 0, 'syntax'], // not ASCII outside a string
  ];
  it.each(impossible)('%j: impossible at %i (%s)', (s, at, problem) => {
    expect(judge(s)).toEqual({ kind: 'impossible', at, problem });
    // … and no byte after it helps: not even what a valid text would have had there.
    const b = bytes(s);
    for (const tail of ['', '"}', '}', ']', '0}', ' "x"}']) {
      const t = new TextDecoder().decode(b) + tail;
      expect(() => JSON.parse(t.replace(/^\ufeff/, '')), t).toThrow();
    }
  });
});

describe('against the strict judges', () => {
  it('agrees with JSON.parse on texts with a byte changed, inserted or cut', () => {
    const r = prng(7);
    const SOME = [...'{}[]",:\\ 0123456789-+.eEtfnulasx\n\t', '\u0000', '\u00e9'];
    let checked = 0;
    const n = fuzz(4000, 20_000);
    for (let k = 0; k < n; k++) {
      const t = k % 2 ? `{"content": ${text(r, 2)}}` : text(r, 3);
      const at = r.int(0, t.length);
      const c = r.pick(SOME);
      const how = r.int(0, 2);
      const mutated =
        how === 0
          ? t.slice(0, at) + c + t.slice(at)
          : how === 1
            ? t.slice(0, at) + c + t.slice(at + 1)
            : t.slice(0, at);
      let parses = true;
      try {
        JSON.parse(mutated);
      } catch {
        parses = false;
      }
      const got = judge(mutated);
      // A whole text parses, and what parses is whole (or a bare number a digit may still follow).
      if (got.kind === 'complete') expect(parses, mutated).toBe(true);
      if (parses)
        expect(got.kind === 'complete' || (got.kind === 'partial' && got.top === 'number'), mutated).toBe(true);
      // What is called impossible does not parse, nor with the original's rest after it.
      if (got.kind === 'impossible') {
        expect(parses, mutated).toBe(false);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(n / 10); // the mutations did reach the impossible side
  });

  it('calls a string impossible for its UTF-8 exactly when a fatal decoder refuses it', () => {
    const r = prng(99);
    const strict = new TextDecoder('utf-8', { fatal: true });
    let refused = 0;
    const n = fuzz(4000, 20_000);
    for (let k = 0; k < n; k++) {
      // Bytes 0x20–0xFF but the quote and backslash, inside a string: only their UTF-8 can be wrong.
      const inner = Array.from({ length: r.int(1, 8) }, () => {
        const b = r.int(0x20, 0xff);
        return b === 0x22 || b === 0x5c ? 0x61 : b < 0x80 && r.next() < 0.7 ? r.int(0x80, 0xff) : b;
      });
      const b = bytes([0x22, ...inner, 0x22]);
      let ok = true;
      try {
        strict.decode(b);
      } catch {
        ok = false;
      }
      const got = jsonPrefix(b);
      if (ok) expect(got, JSON.stringify(inner)).toEqual({ kind: 'complete', top: 'string' });
      else {
        expect(got, JSON.stringify(inner)).toMatchObject({ kind: 'impossible', problem: 'utf8' });
        refused++;
      }
    }
    expect(refused).toBeGreaterThan(n / 20);
  });
});
