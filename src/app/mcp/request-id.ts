/**
 * The `id` of a JSON-RPC request too large to be read, found while its bytes stream past (`baton mcp` answers
 * it with an error the client matches by that id). Only a few counters and the id's own bytes are kept, never
 * the line, so a request of any size costs no memory. The top-level `id` is found before or after the params;
 * no top-level object, or an id that is not a short number or string, gives null (JSON-RPC's unreadable id).
 */
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MAX_ID = 256;
const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

export class RequestIdScan {
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** At depth 1: where a key may start (after `{` or `,`), a key just read, or a value. */
  private slot: 'key' | 'after-key' | 'value' = 'value';
  /** The key being read (its first three bytes: enough to tell "id" from any other). */
  private key: number[] | null = null;
  /** The raw bytes of the id's value while it is read. */
  private value: number[] | null = null;
  /** undefined while it is not known yet. */
  private found: string | number | null | undefined;

  /** Feed the next bytes of the line. */
  scan(bytes: Uint8Array): void {
    for (const b of bytes) {
      if (this.found !== undefined) return;
      this.step(b);
    }
  }

  /** The id, or null when there is none that can be read. */
  id(): string | number | null {
    if (this.found === undefined && this.value) this.finish();
    return this.found ?? null;
  }

  private step(b: number): void {
    if (this.inString) {
      this.stringByte(b);
      return;
    }
    if (this.depth === 0 && b !== 0x7b && !WHITESPACE.has(b)) {
      this.found = null; // a batch, or no object at all: no one id
      return;
    }
    switch (b) {
      case QUOTE:
        this.inString = true;
        if (this.value) this.collect(b);
        else if (this.depth === 1 && this.slot === 'key') this.key = [];
        return;
      case 0x7b:
      case 0x5b:
        if (this.value)
          this.giveUp(); // an object or array is no id
        else if (++this.depth === 1) this.slot = 'key';
        return;
      case 0x7d:
      case 0x5d:
        if (this.depth === 1 && this.value) this.finish();
        if (--this.depth === 0 && this.found === undefined) this.found = null; // the object ended without one
        return;
      case 0x2c:
        if (this.depth !== 1) return;
        if (this.value) this.finish();
        this.slot = 'key';
        return;
      case 0x3a:
        if (this.depth !== 1 || this.slot !== 'after-key') return;
        this.slot = 'value';
        if (this.key?.length === 2 && this.key[0] === 0x69 && this.key[1] === 0x64) this.value = [];
        this.key = null;
        return;
      default:
        if (this.value) this.collect(b);
    }
  }

  private stringByte(b: number): void {
    if (this.value) this.collect(b);
    if (this.escaped) this.escaped = false;
    else if (b === BACKSLASH) this.escaped = true;
    else if (b === QUOTE) {
      this.inString = false;
      if (this.key) this.slot = 'after-key';
      return;
    }
    if (this.key && this.key.length < 3) this.key.push(b);
  }

  private collect(b: number): void {
    if (this.value!.length < MAX_ID) this.value!.push(b);
    else this.giveUp();
  }

  private finish(): void {
    const text = Buffer.from(this.value ?? []).toString('utf8');
    this.value = null;
    try {
      const v: unknown = JSON.parse(text);
      this.found = typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)) ? v : null;
    } catch {
      this.found = null;
    }
  }

  private giveUp(): void {
    this.value = null;
    this.found = null;
  }
}
