/**
 * An agent CLI's transcript (JSONL), read for token usage (core/tokens.ts says what a turn is). A turn's
 * record there is complete only 62–150 ms after its Stop hook, so it is looked at several times: each look
 * reads only what was appended since the last one, not the whole file again (a long conversation's
 * transcript runs to megabytes, and the looks happen inside the daemon's pass).
 */
import { open } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { lastGeminiReply } from '../../core/hook-payload.js';

export class TranscriptTail {
  private offset = 0;
  /** The bytes of a line not yet complete (a newline never occurs inside a UTF-8 character). */
  private rest = Buffer.alloc(0);
  private readonly entries: unknown[] = [];

  constructor(readonly path: string) {}

  /** Every complete line so far that parses (others are skipped). Empty while the file cannot be read. */
  async read(): Promise<readonly unknown[]> {
    const fh = await open(this.path, 'r').catch(() => null);
    if (!fh) return this.entries;
    try {
      const { size } = await fh.stat();
      if (size < this.offset) this.reset(); // a new file under the same name
      if (size === this.offset) return this.entries;
      const chunk = Buffer.alloc(size - this.offset);
      const { bytesRead } = await fh.read(chunk, 0, chunk.length, this.offset);
      this.offset += bytesRead;
      const data = Buffer.concat([this.rest, chunk.subarray(0, bytesRead)]);
      const end = data.lastIndexOf(0x0a);
      this.rest = end < 0 ? data : data.subarray(end + 1);
      if (end >= 0) for (const line of data.subarray(0, end).toString('utf8').split('\n')) this.parse(line);
      return this.entries;
    } finally {
      await fh.close();
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
    this.entries.length = 0;
  }
}

/**
 * The final reply of a turn from a Gemini CLI transcript (its AfterAgent payload's is not exact). The hook
 * runs once the turn is over, so the reply is normally there; it is looked for a little longer if not.
 */
export async function transcriptReply(path: string | null): Promise<string | null> {
  if (!path) return null;
  const tail = new TranscriptTail(path);
  for (let i = 0; i < 10; i++) {
    const reply = lastGeminiReply(await tail.read());
    if (reply) return reply;
    await sleep(50);
  }
  return null;
}
