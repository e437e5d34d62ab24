/**
 * Whether some bytes can still become a JSON text. A file written in place leaves a prefix of its final bytes,
 * so one that could still become valid waits inbox.settle_ms; the prefix of no JSON text is rejected at once
 * (each waited the settle time: a message after 2,000 bad files came 2 s late). docs/decisions/0002-the-flood.md.
 *
 * One pass, no recursion, no JSON.parse. RFC 8259's grammar; strict UTF-8; one BOM may open the text.
 */

/** The kind of the text's top value, from its first byte. */
export type JsonTop = 'object' | 'array' | 'string' | 'number' | 'literal';

export type JsonPrefix =
  /** One whole JSON text: only whitespace may follow, which changes nothing. */
  | { kind: 'complete'; top: JsonTop }
  /** Some bytes appended would make one; `top` null: none begun. A top-level number at the end: a digit may follow. */
  | { kind: 'partial'; top: JsonTop | null }
  /** No JSON text starts with these bytes; `at` is the offset of the first byte that rules it out. */
  | { kind: 'impossible'; at: number; problem: 'utf8' | 'syntax' | 'trailing' };

// What the next byte may be (outside a string, a number or a literal): a value (after `:`, after `,` in an
// array, at the start); a value or `]` (after `[`); a key or `}` (after `{`); a key (after `,` in an object);
// `:`; `,` or the container's closer (after a value inside one); whitespace only (after the top value).
const [VALUE, VALUE_OR_CLOSE, KEY_OR_CLOSE, KEY, COLON, NEXT, END] = [0, 1, 2, 3, 4, 5, 6];
// Inside a number: what was read last.
const [N_MINUS, N_ZERO, N_INT, N_DOT, N_FRAC, N_E, N_ESIGN, N_EXP] = [0, 1, 2, 3, 4, 5, 6, 7];

const BOM = [0xef, 0xbb, 0xbf];
const ESCAPES = new Set([...'"\\/bfnrt'].map((c) => c.charCodeAt(0)));

const isWhitespace = (b: number) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;
const isDigit = (b: number) => b >= 0x30 && b <= 0x39;
const isHex = (b: number) => isDigit(b) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66);

/** A UTF-8 lead byte above 0x7F: how many bytes follow, the first's range (others 0x80–0xBF); null: none starts so. */
function utf8Lead(b: number): { more: number; lo: number; hi: number } | null {
  if (b >= 0xc2 && b <= 0xdf) return { more: 1, lo: 0x80, hi: 0xbf };
  if (b === 0xe0) return { more: 2, lo: 0xa0, hi: 0xbf }; // no overlong form
  if (b === 0xed) return { more: 2, lo: 0x80, hi: 0x9f }; // no surrogate
  if (b >= 0xe1 && b <= 0xef) return { more: 2, lo: 0x80, hi: 0xbf };
  if (b === 0xf0) return { more: 3, lo: 0x90, hi: 0xbf }; // no overlong form
  if (b >= 0xf1 && b <= 0xf3) return { more: 3, lo: 0x80, hi: 0xbf };
  if (b === 0xf4) return { more: 3, lo: 0x80, hi: 0x8f }; // nothing past U+10FFFF
  return null;
}

const LITERALS: Record<number, number[]> = Object.fromEntries(
  ['true', 'false', 'null'].map((w) => [w.charCodeAt(0), [...w].map((c) => c.charCodeAt(0))]),
);

/** Whether `bytes` are a whole JSON text, the beginning of one, or the beginning of none. */
export function jsonPrefix(bytes: Uint8Array): JsonPrefix {
  const scan = new Scan();
  for (let i = 0; i < bytes.length; i++) {
    const problem = scan.step(bytes[i]!, i);
    if (problem) return { kind: 'impossible', at: i, problem };
  }
  return scan.end();
}

type Problem = Extract<JsonPrefix, { kind: 'impossible' }>['problem'];

/** The scanner's state between two bytes: a pushdown automaton for RFC 8259, one byte a step. */
class Scan {
  /** The open containers, innermost last: true for an object. */
  private readonly stack: boolean[] = [];
  private mode = VALUE;
  private top: JsonTop | null = null;
  // At most one of these is under way at a time.
  private bom = 0; // BOM bytes read so far (only at offset 0)
  private string: 'key' | 'value' | null = null;
  private escaped = false;
  private hex = 0; // \u digits still to come
  private utf8 = { more: 0, lo: 0, hi: 0 };
  private number: number | null = null;
  private literal: number[] | null = null;
  private literalAt = 0;

  /** Read byte `b` (at offset `i`): null, or why no JSON text can go on with it. */
  step(b: number, i: number): Problem | null {
    if (this.bom > 0 && this.bom < 3) {
      if (b !== BOM[this.bom]) return 'syntax';
      this.bom++;
      return null;
    }
    if (this.string) return this.inString(b);
    if (this.literal) {
      if (b !== this.literal[this.literalAt]) return 'syntax';
      if (++this.literalAt === this.literal.length) {
        this.literal = null;
        this.valueDone();
      }
      return null;
    }
    if (this.number !== null) {
      const next = numberStep(this.number, b);
      if (next === 'invalid') return 'syntax';
      if (next !== 'ended') {
        this.number = next;
        return null;
      }
      this.number = null;
      this.valueDone(); // and the byte that ended it is read below
    }
    if (isWhitespace(b)) return null;
    if (i === 0 && b === BOM[0]) {
      this.bom = 1;
      return null;
    }
    return this.structural(b);
  }

  /** What the bytes read make: a whole text, or the beginning of one. */
  end(): JsonPrefix {
    if (this.mode === END) return { kind: 'complete', top: this.top! };
    return { kind: 'partial', top: this.top };
  }

  private inString(b: number): Problem | null {
    if (this.utf8.more) {
      if (b < this.utf8.lo || b > this.utf8.hi) return 'utf8';
      this.utf8 = { more: this.utf8.more - 1, lo: 0x80, hi: 0xbf };
    } else if (this.hex) {
      if (!isHex(b)) return 'syntax';
      this.hex--;
    } else if (this.escaped) {
      this.escaped = false;
      if (b === 0x75) this.hex = 4;
      else if (!ESCAPES.has(b)) return 'syntax';
    } else if (b === 0x22) {
      if (this.string === 'key') this.mode = COLON;
      else this.valueDone();
      this.string = null;
    } else if (b === 0x5c) {
      this.escaped = true;
    } else if (b < 0x20) {
      return 'syntax'; // a control character must be escaped
    } else if (b >= 0x80) {
      const lead = utf8Lead(b);
      if (!lead) return 'utf8';
      this.utf8 = lead;
    }
    return null;
  }

  /** A byte outside strings, numbers and literals, not whitespace. */
  private structural(b: number): Problem | null {
    switch (this.mode) {
      case END:
        return 'trailing';
      case COLON:
        if (b !== 0x3a) return 'syntax';
        this.mode = VALUE;
        return null;
      case KEY_OR_CLOSE:
      case KEY:
        if (b === 0x22) this.string = 'key';
        else if (b === 0x7d && this.mode === KEY_OR_CLOSE) this.close();
        else return 'syntax';
        return null;
      case NEXT: {
        const inObject = this.stack[this.stack.length - 1]!;
        if (b === 0x2c) this.mode = inObject ? KEY : VALUE;
        else if (b === (inObject ? 0x7d : 0x5d)) this.close();
        else return 'syntax';
        return null;
      }
      default: // VALUE or VALUE_OR_CLOSE
        if (b === 0x5d && this.mode === VALUE_OR_CLOSE) {
          this.close();
          return null;
        }
        return this.beginValue(b);
    }
  }

  private beginValue(b: number): Problem | null {
    const begun = valueKind(b);
    if (!begun) return 'syntax';
    this.top ??= begun;
    if (b === 0x7b || b === 0x5b) {
      this.stack.push(b === 0x7b);
      this.mode = b === 0x7b ? KEY_OR_CLOSE : VALUE_OR_CLOSE;
    } else if (b === 0x22) this.string = 'value';
    else if (begun === 'number') this.number = b === 0x2d ? N_MINUS : b === 0x30 ? N_ZERO : N_INT;
    else {
      this.literal = LITERALS[b]!;
      this.literalAt = 1;
    }
    return null;
  }

  /** The innermost container ends (its closer was checked by the caller). */
  private close(): void {
    this.stack.pop();
    this.valueDone();
  }

  private valueDone(): void {
    this.mode = this.stack.length ? NEXT : END;
  }
}

/** The kind of value byte `b` begins, or null when none begins with it. */
function valueKind(b: number): JsonTop | null {
  if (b === 0x7b) return 'object';
  if (b === 0x5b) return 'array';
  if (b === 0x22) return 'string';
  if (b === 0x2d || isDigit(b)) return 'number';
  if (b in LITERALS) return 'literal';
  return null;
}

/** A number's next state after byte `b`: `ended` when `b` is not part of it (and it may end here). */
function numberStep(state: number, b: number): number | 'ended' | 'invalid' {
  const digit = isDigit(b);
  switch (state) {
    case N_MINUS:
      return b === 0x30 ? N_ZERO : digit ? N_INT : 'invalid';
    case N_DOT:
      return digit ? N_FRAC : 'invalid';
    case N_E:
      return b === 0x2b || b === 0x2d ? N_ESIGN : digit ? N_EXP : 'invalid';
    case N_ESIGN:
      return digit ? N_EXP : 'invalid';
  }
  if (digit && state !== N_ZERO) return state;
  if (b === 0x2e && (state === N_ZERO || state === N_INT)) return N_DOT;
  if ((b === 0x65 || b === 0x45) && state !== N_EXP) return N_E;
  return 'ended'; // after 0, digits, a fraction or an exponent a number may end
}
