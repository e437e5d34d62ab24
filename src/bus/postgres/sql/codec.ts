/**
 * What PostgreSQL cannot hold (NUL; a lone surrogate), held anyway, so the PostgreSQL bus gives back every message
 * the files bus accepts byte for byte: a message with `\u0000` once made its receiver's daemon retry for ever.
 * Every value is encoded in and decoded out in one place (run() in bind.ts, the listener): U+FDD0 + four hex digits
 * stands for NUL, a lone surrogate, or U+FDD0 itself — injective, and text with none of the three is unchanged.
 * encodeText for text, encodeJson for `jsonb` (JSON escapes of the same code units too).
 * docs/decisions/0006-postgres-holds-any-text.md.
 */

/** The escape character: a noncharacter, U+FDD0. */
const ESC = '\ufdd0';

/** NUL, U+FDD0, a high surrogate with no low one after it, a low surrogate with no high one before it. */
const RAW = /[\u0000\ufdd0]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
/**
 * In JSON text: a `\u` escape of NUL or of a surrogate (escaped, a pair is two escapes: encoding both is
 * harmless), any other escape left as it is (so `\\u0000`, a backslash and "u0000", is not taken for one),
 * or a raw character RAW names.
 */
const IN_JSON =
  /\\u(0000|[dD][89a-fA-F][0-9a-fA-F]{2})|\\[\s\S]|[\u0000\ufdd0]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const ESCAPED = /\ufdd0([0-9a-f]{4})/g;

const escaped = (unit: number): string => `${ESC}${unit.toString(16).padStart(4, '0')}`;

/** Plain text as stored: NUL, lone surrogates and U+FDD0 escaped. */
export const encodeText = (s: string): string => s.replace(RAW, (c) => escaped(c.charCodeAt(0)));

/** JSON text as stored in a `jsonb` column: the same escapes, for raw characters and `\u` escapes alike. */
export const encodeJson = (json: string): string =>
  json.replace(IN_JSON, (m, hex: string | undefined) => {
    if (hex !== undefined) return escaped(Number.parseInt(hex, 16));
    return m.length === 2 ? m : escaped(m.charCodeAt(0)); // another escape, kept; a raw character
  });

/** Stored text back as written. */
export const decodeText = (s: string): string =>
  s.includes(ESC) ? s.replace(ESCAPED, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))) : s;

/** A `jsonb` value's text as the server gives it, back as JSON text that parses to the value written. */
export const decodeJson = (json: string): string => (json.includes(ESC) ? json.replace(ESCAPED, '\\u$1') : json);

/** JSON text for a `jsonb` parameter: encoded as JSON (encodeJson), not as plain text. */
export class Json {
  private constructor(readonly text: string) {}

  /** `value` as JSON (JSON.stringify: a lone surrogate or NUL becomes a `\u` escape, encoded when bound). */
  static of(value: unknown): Json {
    return new Json(JSON.stringify(value));
  }
}

/** A parameter as bound: text encoded, JSON text encoded as JSON, arrays element by element. */
export function encodeParam(v: unknown): unknown {
  if (typeof v === 'string') return encodeText(v);
  if (v instanceof Json) return encodeJson(v.text);
  if (Array.isArray(v)) return v.map(encodeParam);
  return v;
}
