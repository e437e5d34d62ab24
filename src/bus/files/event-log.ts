/**
 * events.jsonl on the files bus: one JSON object a line, appended; a line is one write, so lines never
 * interleave. Read back by byte offset within a generation — the file's inode and birth time (an inode
 * alone can be reused) — so a reader notices a log that was replaced (`baton up --fresh`).
 */
import { appendFileSync } from 'node:fs';
import { type FileHandle, open, stat } from 'node:fs/promises';
import { LogReplaced, NO_LOG, type EventLog, type EventName, type EventSource } from '../events.js';
import { followFile } from './follow.js';

/** A line longer than this is not the daemon's: it is skipped, not re-read at every look. */
const MAX_LINE = 1024 * 1024;
const CHUNK = 1024 * 1024;

export function eventLog(file: string, onError: (err: unknown) => void): EventLog {
  return {
    async emit(event: EventName, fields = {}) {
      const line = `${JSON.stringify({ ts: new Date().toISOString(), event, ...fields })}\n`;
      // A record, not the truth: a failed append never stops a delivery. Synchronous: three small local
      // calls, where the async append was three thread-pool round trips for each of a delivery's events.
      try {
        appendFileSync(file, line);
      } catch (err) {
        onError(err);
      }
    },
  };
}

/** A log file's identity: its inode and birth time. */
const genOf = (st: { ino: number; birthtimeMs: number } | null) =>
  st ? `${st.ino.toString(36)}-${Math.floor(st.birthtimeMs).toString(36)}` : NO_LOG;

export class FileEventSource implements EventSource {
  constructor(private readonly file: string) {}

  async head(): Promise<{ gen: string; end: number }> {
    const st = await stat(this.file).catch(() => null);
    return { gen: genOf(st), end: st?.size ?? 0 };
  }

  follow(changed: () => void): { close(): void } {
    return followFile(this.file, changed);
  }

  /**
   * Every whole line in bytes [from, to): a line still being written (no newline yet) is left for the
   * next look; a line that is not a JSON object is skipped, and so is one longer than MAX_LINE.
   */
  // biome-ignore lint/complexity/useMaxParams: EventSource.read's shape (bus/events.ts), the PostgreSQL bus's too
  async read(
    gen: string,
    from: number,
    to: number,
    each: (e: Record<string, unknown>, end: number) => unknown,
    opts: { skipping?: boolean } = {},
  ): Promise<{ last: number; skipping: boolean }> {
    let skipping = opts.skipping ?? false;
    if (to <= from) return { last: from, skipping };
    let fh: FileHandle;
    try {
      fh = await open(this.file, 'r');
    } catch {
      if (gen !== NO_LOG) throw new LogReplaced();
      return { last: from, skipping };
    }
    let last = from;
    try {
      if (genOf(await fh.stat()) !== gen) throw new LogReplaced();
      let pos = from;
      let carry = Buffer.alloc(0);
      while (pos < to) {
        const buf = Buffer.alloc(Math.min(CHUNK, to - pos));
        const { bytesRead } = await fh.read(buf, 0, buf.length, pos);
        if (bytesRead === 0) break;
        const data = carry.length ? Buffer.concat([carry, buf.subarray(0, bytesRead)]) : buf.subarray(0, bytesRead);
        const base = pos - carry.length;
        pos += bytesRead;
        let start = 0;
        for (let nl = data.indexOf(10); nl !== -1; nl = data.indexOf(10, start)) {
          const line = data.subarray(start, nl);
          start = nl + 1;
          last = base + start;
          if (skipping) {
            skipping = false; // the end of an overlong line
            continue;
          }
          let e: unknown;
          try {
            e = JSON.parse(line.toString('utf8'));
          } catch {
            continue;
          }
          if (!e || typeof e !== 'object' || Array.isArray(e)) continue;
          if ((await each(e as Record<string, unknown>, base + start)) === false) return { last, skipping };
        }
        carry = Buffer.from(data.subarray(start));
        if (carry.length > MAX_LINE) {
          skipping = true;
          last = base + data.length;
          carry = Buffer.alloc(0);
        }
      }
    } finally {
      await fh.close();
    }
    return { last, skipping };
  }
}
