/**
 * The one source of live updates for every browser tab: it follows events.jsonl (one small append-only
 * file, however long the archive) and turns each line into a Server-Sent Event whose id is a cursor:
 * which log file (its generation) and the byte offset just past that line. A tab that reconnects sends
 * the cursor back (Last-Event-ID) and is replayed exactly the lines it missed: nothing twice, nothing
 * skipped. A cursor from another log (`baton up --fresh` replaced it) or too far behind gets `reset`,
 * and the tab loads a fresh snapshot. Status and screens are read on a timer only while a tab is open,
 * and pushed to all tabs, so tabs never poll.
 */
import { open, stat } from 'node:fs/promises';
import { sanitize } from '../compose.js';
import type { Config } from '../config.js';
import { followFile, type Follower } from '../follow.js';
import { layout, type Layout } from '../layout.js';
import { capture, findPane } from '../pane.js';
import { Tmux } from '../tmux.js';
import { collectStatus, type StatusReport } from '../commands/status.js';
import type { FeedEvent } from './api.js';
import { Transcript } from './transcript.js';

const ID = /^(msg|user)_\d{4,}$/;
/** A tab further behind than this is told to reload instead of being replayed line by line. */
const MAX_REPLAY_BYTES = 4 * 1024 * 1024;
/** A line longer than this is not the daemon's: it is skipped, not re-read at every look. */
const MAX_LINE = 1024 * 1024;
const CHUNK = 1024 * 1024;
const SCREEN_CAP = 32 * 1024;
/** A screen is read again when its window showed activity, and at least this often. */
const SCREEN_STALE_MS = 15_000;
/** The generation of a log that does not exist yet. */
const NO_FILE = '0';

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

export const sse = (event: string, data: unknown, id?: string): string =>
  `${id !== undefined ? `id: ${id}\n` : ''}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;


const cursorOf = (gen: string, offset: number) => `${gen}:${offset}`;
export function parseCursor(s: string): { gen: string; offset: number } | null {
  const m = /^([0-9a-z-]{1,40}):(\d{1,15})$/.exec(s);
  return m ? { gen: m[1]!, offset: Number(m[2]) } : null;
}
/** A log file's identity: its inode and birth time (an inode alone can be reused). */
const genOf = (st: { ino: number; birthtimeMs: number } | null) => (st ? `${st.ino.toString(36)}-${Math.floor(st.birthtimeMs).toString(36)}` : NO_FILE);

export class Feed {
  readonly transcript: Transcript;
  private readonly l: Layout;
  // One control-mode client for all of the dashboard's questions to tmux, as the daemon has: a status
  // and screen read every few seconds would otherwise start a tmux process for each pane each time.
  private readonly tmux = new Tmux({ control: true });
  /** Bytes of events.jsonl turned into events so far (always the end of a whole line). */
  private offset = 0;
  private gen = NO_FILE;
  /** The log ends inside an overlong line: the next look skips the rest of it. */
  private skipping = false;
  private readonly subs = new Set<Sub>();
  private pumping: Promise<void> = Promise.resolve();
  private pumpQueued = false;
  private follower: Follower | null = null;
  private timers: NodeJS.Timeout[] = [];
  private closed = false;
  private status: StatusReport | null = null;
  private statusKey = '';
  private statusBusy = false;
  private statusAgain = false;
  private statusSoon: NodeJS.Timeout | null = null;
  private readonly screens = new Map<string, string | null>();
  private readonly screenRead = new Map<string, { activity: number; at: number }>();
  private screensBusy = false;
  private readonly opts: Required<FeedOptions>;

  constructor(
    private readonly config: Config,
    opts: FeedOptions = {},
  ) {
    this.l = layout(config);
    this.transcript = new Transcript(this.l.archive);
    this.opts = { statusEveryMs: 4000, screensEveryMs: 3000, heartbeatMs: 15_000, onError: () => {}, ...opts };
  }

  /** Where the feed is now: what a snapshot taken this moment has seen. */
  get cursor(): string {
    return cursorOf(this.gen, this.offset);
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
      // Events bring a fresh status at once; the timer catches what has no event (a pane that died).
      setInterval(() => this.subs.size && void this.refreshStatus(), this.opts.statusEveryMs),
      setInterval(() => this.subs.size && void this.refreshScreens(), this.opts.screensEveryMs),
      setInterval(() => this.broadcast(': keep-alive\n\n'), this.opts.heartbeatMs),
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers) clearInterval(t);
    this.follower?.close();
    await this.pumping.catch(() => {});
    if (this.statusSoon) clearTimeout(this.statusSoon);
    this.tmux.close();
  }

  /**
   * Read the conversation afresh: the archive's index, and the log up to its end (for reminder
   * counts). At start, and when events.jsonl was replaced. Everything is swapped in at once, so a
   * snapshot never pairs the new transcript with the old cursor.
   */
  private async rebase(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      // Where the log ends before the archive is read: anything delivered later is a line after it.
      const st = await this.stat();
      const gen = genOf(st);
      const ids = await this.transcript.read();
      const nudges = new Map<string, number>();
      try {
        const r = await this.readLines(0, st?.size ?? 0, (e) => void count(nudges, e), { gen });
        this.transcript.replace(ids, nudges);
        this.offset = r.last;
        this.skipping = r.skipping;
        this.gen = gen;
        return;
      } catch (err) {
        if (!(err instanceof Replaced) || attempt === 3) throw err; // replaced again while being read
      }
    }
  }

  /**
   * A tab joins. `from` is the cursor it has seen up to (Last-Event-ID), or undefined for "from now".
   * Returns the function that removes it.
   */
  async subscribe(sink: Sink, from: string | undefined): Promise<() => void> {
    // Catch up with the log first, so a tab that has seen more than this feed is not told to reload.
    this.schedulePump();
    await this.pumping;
    const until = this.offset;
    const sub: Sub = { sink, queue: [] };
    this.subs.add(sub);
    const leave = () => void this.subs.delete(sub);
    let alive = true;
    const send = (chunk: string) => (alive &&= sink(chunk));
    try {
      if (this.status) send(sse('status', this.status));
      if (this.screens.size) send(sse('screens', this.lastScreens));
      if (from !== undefined) {
        const c = parseCursor(from);
        const gen = this.gen;
        // A tab that saw nothing before the log existed may read it from its start.
        const start = c && (c.gen === gen || (c.gen === NO_FILE && c.offset === 0)) ? c.offset : null;
        if (start === null || start > until || until - start > MAX_REPLAY_BYTES) send(sse('reset', { cursor: this.cursor }));
        // Labelled with the generation the cursor was checked against: the file is checked to be that one.
        else await this.readLines(start, until, async (e, end) => alive && send(await this.render(e, end, gen)), { gen });
      }
    } catch (err) {
      this.opts.onError(err);
      send(sse('reset', { cursor: this.cursor })); // the tab reloads rather than miss something
    } finally {
      const queued = sub.queue ?? [];
      sub.queue = null;
      for (const c of queued) if (!send(c)) break;
      if (!alive) leave();
    }
    // With no tab open nothing was read: the status just sent may be old, so read it again now.
    this.scheduleStatus();
    void this.refreshScreens();
    return leave;
  }

  /** Status is read again soon after any event (debounced), and on a timer. */
  private scheduleStatus(): void {
    if (this.statusSoon || this.closed || !this.subs.size) return;
    this.statusSoon = setTimeout(() => {
      this.statusSoon = null;
      void this.refreshStatus();
    }, 150);
  }

  async refreshStatus(): Promise<void> {
    if (this.closed) return;
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

  /**
   * Each agent's visible screen, as plain text (capture-pane without -e: no escape sequences). A pane
   * is captured again only when tmux saw activity in its window, or its copy is getting old.
   */
  async refreshScreens(): Promise<void> {
    if (this.screensBusy || this.closed || !this.subs.size) return;
    this.screensBusy = true;
    try {
      const changed: Record<string, string | null> = {};
      await Promise.all(
        this.config.order.map(async (name) => {
          const pane = await findPane(this.tmux, this.config.agents[name]!);
          const last = this.screenRead.get(name);
          if (pane && !pane.dead && last && last.activity === pane.activity && Date.now() - last.at < SCREEN_STALE_MS && this.screens.get(name) !== null) return;
          const lines = pane && !pane.dead ? await capture(this.tmux, pane) : null;
          const text = lines ? plain(lines) : null;
          if (pane) this.screenRead.set(name, { activity: pane.activity, at: Date.now() });
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
    if (this.pumpQueued || this.closed) return; // one pump waiting is enough: it reads to the end
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
    if (st && this.gen === NO_FILE && this.offset === 0) this.gen = genOf(st); // the first daemon just made it
    if ((st ? genOf(st) : NO_FILE) !== this.gen || size < this.offset) {
      // Another conversation (the log replaced, removed or truncated): read it afresh; every tab reloads.
      await this.rebase();
      this.broadcast(sse('reset', { cursor: this.cursor }));
      this.scheduleStatus();
      return;
    }
    if (size === this.offset) return;
    const gen = this.gen;
    let r;
    try {
      r = await this.readLines(
        this.offset,
        size,
        async (e, end) => {
          count(this.transcript.nudges, e);
          if (isDelivery(e)) this.transcript.add(e.id);
          const chunk = await this.render(e, end, gen);
          // Offset and broadcast move together: every line before `offset` has reached every live tab.
          this.offset = end;
          this.broadcast(chunk);
        },
        { gen, skipping: this.skipping },
      );
    } catch (err) {
      if (!(err instanceof Replaced)) throw err;
      await this.rebase(); // replaced between the look and the read
      this.broadcast(sse('reset', { cursor: this.cursor }));
      return;
    }
    this.offset = Math.max(this.offset, r.last); // past lines that were not JSON, too
    this.skipping = r.skipping;
    this.scheduleStatus();
  }

  private async render(e: Record<string, unknown>, end: number, gen: string): Promise<string> {
    const data: FeedEvent = { e };
    if (isDelivery(e)) {
      data.bubble = await this.transcript.bubble(e.id);
      data.pos = this.transcript.position(e.id);
    }
    if (e.event === 'nudged' && typeof e.reply_to === 'string') data.nudges = this.transcript.nudges.get(e.reply_to) ?? 0;
    return sse('baton', data, cursorOf(gen, end));
  }

  private async stat(): Promise<{ size: number; ino: number; birthtimeMs: number } | null> {
    return stat(this.l.events).then(
      (st) => ({ size: st.size, ino: st.ino, birthtimeMs: st.birthtimeMs }),
      () => null,
    );
  }

  /**
   * Call `each` for every whole line in bytes [from, to) with the offset just past it; `each` returning
   * false stops the reading. A line still being written (no newline yet) is left for the next look; a
   * line that is not a JSON object is skipped, and so is one longer than MAX_LINE: `skipping` says the
   * reading starts inside such a line (it is skipped up to its newline). Throws Replaced when the file
   * opened is not generation `gen`. Returns the offset just past what was read or skipped.
   */
  private async readLines(
    from: number,
    to: number,
    each: (e: Record<string, unknown>, end: number) => unknown,
    opts: { gen: string; skipping?: boolean },
  ): Promise<{ last: number; skipping: boolean }> {
    let skipping = opts.skipping ?? false;
    if (to <= from) return { last: from, skipping };
    let fh;
    try {
      fh = await open(this.l.events, 'r');
    } catch {
      if (opts.gen !== NO_FILE) throw new Replaced();
      return { last: from, skipping };
    }
    let last = from;
    try {
      if (genOf(await fh.stat()) !== opts.gen) throw new Replaced();
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
          if (e && typeof e === 'object' && !Array.isArray(e) && (await each(e as Record<string, unknown>, base + start)) === false) return { last, skipping };
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

/** The log file is not the one the reading was meant for (replaced meanwhile). */
class Replaced extends Error {}

function isDelivery(e: Record<string, unknown>): e is Record<string, unknown> & { id: string } {
  return (e.event === 'delivered' || e.event === 'sent') && typeof e.id === 'string' && ID.test(e.id);
}

function count(nudges: Map<string, number>, e: Record<string, unknown>): void {
  if (e.event === 'nudged' && typeof e.reply_to === 'string') nudges.set(e.reply_to, (nudges.get(e.reply_to) ?? 0) + 1);
}

/** A screen as plain text: no control characters but newline and tab, no trailing blank lines, capped. */
function plain(lines: string[]): string {
  const text = sanitize(lines.join('\n'))
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n')
    .replace(/\n+$/, '');
  return text.length > SCREEN_CAP ? text.slice(0, SCREEN_CAP) : text;
}
