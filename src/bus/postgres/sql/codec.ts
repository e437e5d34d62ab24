/**
 * What PostgreSQL cannot hold, held anyway: the PostgreSQL bus stores every message the files bus accepts
 * and gives it back byte for byte (docs/protocol.md §10). `text` refuses NUL; a lone surrogate (half of a
 * UTF-16 pair: valid in a JavaScript string and in JSON, with no form in UTF-8) became U+FFFD on its way to
 * the server; `jsonb` refuses both as escapes (`\u0000`: "unsupported Unicode escape sequence", `\ud800`:
 * "invalid input syntax for type json"). A message with either — `"x\u0000y"` in a file, or NUL piped into
 * `baton post -` — made the receiving daemon retry its turn step once a second for ever, every later
 * message waiting behind it, while the files bus delivered the same content.
 *
 * So every value is encoded on its way in and decoded on its way out, in one place (run() in bind.ts, and
 * the notification listener for payloads): U+FDD0 followed by the code unit as four lowercase hex digits
 * stands for exactly three things — NUL, a lone surrogate, and U+FDD0 itself. U+FDD0 is a noncharacter
 * (Unicode keeps it for a program's own use; no text a person or an agent writes has one), every U+FDD0 in
 * an encoded value starts an escape, so the encoding is injective; a value with none of the three goes
 * through unchanged — ordinary text costs one scan, and rows written before this encoding read the same.
 *
 * The escape stands for a code unit of the *value*, in a `text` column and inside a `jsonb` string alike,
 * so a `jsonb` value read back as text (`->>`) decodes the same way. A parameter is either plain text
 * (encodeText) or JSON text for a `jsonb` column (a Json: encodeJson, which also turns the JSON escapes
 * `\u0000` and `\ud800`–`\udfff` into the same escape).
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
