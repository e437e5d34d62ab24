/**
 * An agent CLI's transcript (JSONL), read for token usage (core/tokens.ts) and a Gemini turn's reply. A turn's
 * record is complete only 62–150 ms after its Stop hook, so it is looked at several times, each look reading only
 * what was appended. Read only as a regular file this user owns under its client's folders (client-folders.ts),
 * capped per look (CHUNK_BYTES), in all (WINDOW_BYTES) and per line (LINE_BYTES).
 * docs/decisions/0008-what-an-agent-writes-is-hostile.md.
 */
import { realpath } from 'node:fs/promises';
import { sep } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { lastGeminiReply } from '../../core/hook-payload.js';
import { openOwnFile, readAt } from '../../lib/own-file.js';

/** At most this much is read in one look (a few tens of ms of parsing), the rest at the next. */
const CHUNK_BYTES = 8 << 20;
/** A transcript longer than this is read from this far before its end: the turn that just ended is there. */
const WINDOW_BYTES = 32 << 20;
/** A line longer than this is skipped, not kept waiting for its end. */
const LINE_BYTES = 16 << 20;

/** The three caps of a tail. Always these in baton; the unit tests scale them down (tens of MiB took 0.4 s). */
export interface TailLimits {
  chunk: number;
  window: number;
  line: number;
}
export const LIMITS: TailLimits = { chunk: CHUNK_BYTES, window: WINDOW_BYTES, line: LINE_BYTES };

export class TranscriptTail {
  private offset = 0;
  /** The bytes of a line not yet complete (a newline never occurs inside a UTF-8 character). */
  private rest = Buffer.alloc(0);
  /** Dropping bytes up to the next newline (a line too long, or the start of a window). */
  private skipping = false;
  private readonly entries: unknown[] = [];
  /** Why this transcript is not read (for good), in baton's words; null while it may be. */
  refused: string | null = null;

  /** `folders`: where its client keeps transcripts (client-folders.ts); it is read only under one of them. */
  constructor(
    readonly path: string,
    private readonly folders: readonly string[],
    private readonly limits: TailLimits = LIMITS,
  ) {}

  /** Every complete line so far that parses (others are skipped). Empty while the file cannot be read. */
  async read(): Promise<readonly unknown[]> {
    if (this.refused) return this.entries;
    const real = await this.resolve();
    if (real === null) return this.entries;
    const o = await openOwnFile(real);
    if (!o.ok) {
      if (!o.gone) this.refused = o.reason;
      return this.entries;
    }
    try {
      if (o.size < this.offset) this.reset(); // a new file under the same name
      if (this.offset === 0 && o.size > this.limits.window) {
        this.offset = o.size - this.limits.window;
        this.skipping = true; // the window starts inside a line
      }
      if (o.size === this.offset) return this.entries;
      const chunk = await readAt(o.fh, this.offset, Math.min(o.size - this.offset, this.limits.chunk));
      this.offset += chunk.length;
      this.take(chunk);
      return this.entries;
    } finally {
      await o.fh.close().catch(() => {});
    }
  }

  /** The real path when it is under the client's folders; null while it does not exist. */
  private async resolve(): Promise<string | null> {
    let real: string;
    try {
      real = await realpath(this.path);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') this.refused = `cannot resolve its path (${code ?? 'error'})`;
      return null;
    }
    const roots = await Promise.all(this.folders.map((f) => realpath(f).catch(() => f)));
    if (!roots.some((r) => real.startsWith(r.endsWith(sep) ? r : r + sep))) {
      this.refused = this.folders.length
        ? `not under its client's folders (${this.folders.join(', ')})`
        : 'its client keeps no transcripts baton reads';
      return null;
    }
    return real;
  }

  private take(chunk: Buffer): void {
    let data = chunk;
    if (this.skipping) {
      const nl = data.indexOf(0x0a);
      if (nl < 0) return;
      this.skipping = false;
      data = data.subarray(nl + 1);
    }
    data = this.rest.length ? Buffer.concat([this.rest, data]) : data;
    const end = data.lastIndexOf(0x0a);
    const rest = end < 0 ? data : data.subarray(end + 1);
    this.skipping = rest.length > this.limits.line;
    this.rest = this.skipping ? Buffer.alloc(0) : Buffer.from(rest);
    for (let start = 0; start <= end; ) {
      const nl = data.indexOf(0x0a, start);
      if (nl - start <= this.limits.line) this.parse(data.toString('utf8', start, nl));
      start = nl + 1;
    }
  }

  private parse(line: string): void {
    if (!line.trim()) return;
    try {
      this.entries.push(JSON.parse(line));
    } catch {
      /* not JSON: skipped */
    }
  }

  private reset(): void {
    this.offset = 0;
    this.rest = Buffer.alloc(0);
    this.skipping = false;
    this.entries.length = 0;
  }
}

/**
 * The final reply of a turn from a Gemini CLI transcript (its AfterAgent payload's is not exact). The hook
 * runs once the turn is over, so the reply is normally there; it is looked for a little longer if not.
 * `refused`: why the transcript was not read, when it was not.
 */
export async function transcriptReply(
  path: string | null,
  folders: readonly string[],
): Promise<{ reply: string | null; refused: string | null }> {
  if (!path) return { reply: null, refused: null };
  const tail = new TranscriptTail(path, folders);
  for (let i = 0; i < 10; i++) {
    const reply = lastGeminiReply(await tail.read());
    if (reply || tail.refused) return { reply, refused: tail.refused };
    await sleep(50);
  }
  return { reply: null, refused: null };
}
