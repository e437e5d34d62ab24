/**
 * The one source of live updates for every browser tab: it follows events.jsonl (one small append-only
 * file, however long the archive) and turns each line into a Server-Sent Event whose id is the byte
 * offset just past that line. A tab that reconnects sends that id back (Last-Event-ID) and is replayed
 * exactly the lines it missed: nothing twice, nothing skipped. Status and pane screens are read here on
 * a timer only while some tab is open, and pushed to all of them, so tabs never poll.
 */
import { open, stat } from 'node:fs/promises';
import type { Config } from '../config.js';
import { followFile, type Follower } from '../follow.js';
import { layout, type Layout } from '../layout.js';
import { capture, findPane } from '../pane.js';
import { Tmux } from '../tmux.js';
import { collectStatus, type StatusReport } from '../commands/status.js';
import { Transcript, type Bubble } from './transcript.js';

const ID = /^(msg|user)_\d{4,}$/;
/** A tab further behind than this is told to reload instead of being replayed line by line. */
const MAX_REPLAY_BYTES = 4 * 1024 * 1024;
const CHUNK = 1024 * 1024;
const SCREEN_CAP = 32 * 1024;

export interface FeedOptions {
  statusEveryMs?: number;
  screensEveryMs?: number;
  heartbeatMs?: number;
  onError?: (err: unknown) => void;
}

/** Writes one SSE chunk to a tab; returns false when the tab is gone or too slow (it is dropped). */
export type Sink = (chunk: string) => boolean;

interface Sub {
  sink: Sink;
  /** Chunks that arrive while the tab's backlog is being replayed. */
  queue: string[] | null;
}

export const sse = (event: string, data: unknown, id?: number): string =>
  `${id !== undefined ? `id: ${id}\n` : ''}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/** What a `baton` event carries: the events.jsonl line, and the message it is about. */
export interface FeedEvent {
  e: Record<string, unknown>;
  bubble?: Bubble | null;
  nudges?: number;
}

export class Feed {
  readonly transcript: Transcript;
  private readonly l: Layout;
  // One control-mode client for all of the dashboard's questions to tmux, as the daemon has: a status
  // and screen read every few seconds would otherwise start a tmux process for each pane each time.
  private readonly tmux = new Tmux({ control: true });
  /** Bytes of events.jsonl turned into events so far (always the end of a whole line). */
  private offset = 0;
  /** The log file's inode: a new one means the conversation was replaced. */
  private ino: number | null = null;
  private readonly subs = new Set<Sub>();
  private pumping: Promise<void> = Promise.resolve();
  private pumpQueued = false;
  private follower: Follower | null = null;
  private timers: NodeJS.Timeout[] = [];
  private status: StatusReport | null = null;
  private statusKey = '';
  private statusBusy = false;
  private statusAgain = false;
  private statusSoon: NodeJS.Timeout | null = null;
  private readonly screens = new Map<string, string | null>();
  private screensBusy = false;
  private readonly opts: Required<FeedOptions>;

  constructor(
    private readonly config: Config,
    opts: FeedOptions = {},
  ) {
    this.l = layout(config);
    this.transcript = new Transcript(this.l.archive);
    this.opts = { statusEveryMs: 2000, screensEveryMs: 2500, heartbeatMs: 15_000, onError: () => {}, ...opts };
  }

  get cursor(): number {
    return this.offset;
  }

  get lastStatus(): StatusReport | null {
    return this.status;
  }

  get lastScreens(): Record<string, string | null> {
    return Object.fromEntries(this.screens);
  }

  async start(): Promise<void> {
    await this.rebase();
    await this.pump();
    await this.refreshStatus();
    this.follower = followFile(this.l.events, () => this.schedulePump());
    this.timers.push(
      setInterval(() => this.subs.size && void this.refreshStatus(), this.opts.statusEveryMs),
      setInterval(() => this.subs.size && void this.refreshScreens(), this.opts.screensEveryMs),
      setInterval(() => this.broadcast(': keep-alive\n\n'), this.opts.heartbeatMs),
    );
  }

  /**
   * Read the conversation afresh: the archive's index, and the log up to its end (for reminder counts).
   * At start, and when events.jsonl was replaced (`baton up --fresh` moves a conversation away).
   */
  private async rebase(): Promise<void> {
    // Where the log ends before the archive is read: anything delivered later is a line after it.
    const st = await this.stat();
    this.transcript.nudges.clear();
    await this.transcript.load();
    this.offset = await this.readLines(0, st?.size ?? 0, (e) => this.count(e));
    this.ino = st?.ino ?? null;
  }

  async close(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    if (this.statusSoon) clearTimeout(this.statusSoon);
    this.follower?.close();
    await this.pumping.catch(() => {});
    this.tmux.close();
  }

  /**
   * A tab joins. `from` is the offset it has seen up to (Last-Event-ID), or undefined for "from now".
   * Returns the function that removes it.
   */
  async subscribe(sink: Sink, from: number | undefined): Promise<() => void> {
    // Catch up with the log first, so a tab that has seen more than this feed is not told to reload.
    await (this.pumping = this.pumping.then(() => this.pump()).catch(this.opts.onError));
    const until = this.offset;
    const sub: Sub = { sink, queue: [] };
    this.subs.add(sub);
    const leave = () => void this.subs.delete(sub);
    if (this.status) sink(sse('status', this.status));
    if (this.screens.size) sink(sse('screens', this.lastScreens));
    if (from !== undefined && from !== until) {
      if (from > until || from < 0 || until - from > MAX_REPLAY_BYTES) {
        // Another log (replaced or truncated), or too far behind: the tab reloads its snapshot.
        sink(sse('reset', { cursor: until }));
      } else {
        const chunks: string[] = [];
        await this.readLines(from, until, async (e, end) => void chunks.push(await this.render(e, end)));
        for (const c of chunks) if (!sink(c)) break;
      }
    }
    const queued = sub.queue ?? [];
    sub.queue = null;
    for (const c of queued) if (!sink(c)) break;
    void this.refreshScreens();
    return leave;
  }

  /** Status is read again soon after any event (debounced), and on a timer. */
  private scheduleStatus(): void {
    if (this.statusSoon) return;
    this.statusSoon = setTimeout(() => {
      this.statusSoon = null;
      void this.refreshStatus();
    }, 150);
  }

  async refreshStatus(): Promise<void> {
    if (this.statusBusy) {
      this.statusAgain = true; // something changed while it was being read: read it once more after
      return;
    }
    this.statusBusy = true;
    this.statusAgain = false;
    try {
      const s = await collectStatus(this.config, this.tmux);
      // seconds_in_turn ticks every second; the page counts it from turn_started_at itself.
      const key = JSON.stringify({ ...s, seconds_in_turn: null });
      this.status = s;
      if (key !== this.statusKey) {
        this.statusKey = key;
        this.broadcast(sse('status', s));
      }
    } catch (err) {
      this.opts.onError(err);
    } finally {
      this.statusBusy = false;
      if (this.statusAgain) this.scheduleStatus();
    }
  }

  /** Each agent's visible screen, as plain text (capture-pane without -e: no escape sequences). */
  async refreshScreens(): Promise<void> {
    if (this.screensBusy || !this.subs.size) return;
    this.screensBusy = true;
    try {
      const changed: Record<string, string | null> = {};
      await Promise.all(
        this.config.order.map(async (name) => {
          const pane = await findPane(this.tmux, this.config.agents[name]!);
          const lines = pane && !pane.dead ? await capture(this.tmux, pane) : null;
          const text = lines ? plain(lines) : null;
          if (this.screens.get(name) !== text || !this.screens.has(name)) {
            this.screens.set(name, text);
            changed[name] = text;
          }
        }),
      );
      if (Object.keys(changed).length) this.broadcast(sse('screens', changed));
    } catch (err) {
      this.opts.onError(err);
    } finally {
      this.screensBusy = false;
    }
  }

  private broadcast(chunk: string): void {
    for (const sub of this.subs) {
      if (sub.queue) sub.queue.push(chunk);
      else if (!sub.sink(chunk)) this.subs.delete(sub);
    }
  }

  private schedulePump(): void {
    if (this.pumpQueued) return; // one pump waiting is enough: it reads to the end
    this.pumpQueued = true;
    this.pumping = this.pumping
      .then(() => {
        this.pumpQueued = false;
        return this.pump();
      })
      .catch(this.opts.onError);
  }

  /** Turn the lines appended since the last look into events, one at a time, in order. */
  private async pump(): Promise<void> {
    const st = await this.stat();
    const size = st?.size ?? 0;
    if (st && this.ino === null) this.ino = st.ino; // the first daemon just made it
    if ((st && st.ino !== this.ino) || size < this.offset) {
      // Another conversation (the log replaced or truncated): read it afresh and have every tab reload.
      await this.rebase();
      this.broadcast(sse('reset', { cursor: this.offset }));
      this.scheduleStatus();
      return;
    }
    if (size === this.offset) return;
    const end = await this.readLines(this.offset, size, async (e, end) => {
      this.count(e);
      if ((e.event === 'delivered' || e.event === 'sent') && typeof e.id === 'string' && ID.test(e.id)) this.transcript.add(e.id);
      const chunk = await this.render(e, end);
      // Offset and broadcast move together: every line before `offset` has reached every live tab.
      this.offset = end;
      this.broadcast(chunk);
    });
    this.offset = Math.max(this.offset, end); // past lines that were not JSON, too
    this.scheduleStatus();
  }

  private count(e: Record<string, unknown>): void {
    if (e.event === 'nudged' && typeof e.reply_to === 'string') this.transcript.nudges.set(e.reply_to, (this.transcript.nudges.get(e.reply_to) ?? 0) + 1);
  }

  private async render(e: Record<string, unknown>, end: number): Promise<string> {
    const data: FeedEvent = { e };
    if ((e.event === 'delivered' || e.event === 'sent') && typeof e.id === 'string' && ID.test(e.id)) data.bubble = await this.transcript.bubble(e.id);
    if (e.event === 'nudged' && typeof e.reply_to === 'string') data.nudges = this.transcript.nudges.get(e.reply_to) ?? 0;
    return sse('baton', data, end);
  }

  private async stat(): Promise<{ size: number; ino: number } | null> {
    return stat(this.l.events).then(
      (st) => ({ size: st.size, ino: st.ino }),
      () => null,
    );
  }

  /**
   * Call `each` for every whole line in bytes [from, to) with the offset just past it. A line still
   * being written (no newline yet) is left for the next look; a line that is not JSON is skipped.
   * Returns the offset just past the last whole line.
   */
  private async readLines(from: number, to: number, each: (e: Record<string, unknown>, end: number) => void | Promise<void>): Promise<number> {
    if (to <= from) return from;
    let fh;
    try {
      fh = await open(this.l.events, 'r');
    } catch {
      return from;
    }
    let last = from;
    try {
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
          const text = data.subarray(start, nl).toString('utf8');
          start = nl + 1;
          last = base + start;
          let e: unknown;
          try {
            e = JSON.parse(text);
          } catch {
            continue;
          }
          if (e && typeof e === 'object' && !Array.isArray(e)) await each(e as Record<string, unknown>, base + start);
        }
        carry = Buffer.from(data.subarray(start));
      }
    } finally {
      await fh.close();
    }
    return last;
  }
}

/** A screen as plain text: no control characters but newline and tab, no trailing blank lines, capped. */
export function plain(lines: string[]): string {
  const text = lines
    .map((l) => l.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '').trimEnd())
    .join('\n')
    .replace(/\n+$/, '');
  return text.length > SCREEN_CAP ? text.slice(0, SCREEN_CAP) : text;
}
