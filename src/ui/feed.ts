/**
 * The one source of live updates for every browser tab: it follows the bus's events (events.jsonl on the files bus: one
 * small append-only file, however long the archive) and turns each into a Server-Sent Event whose id is a cursor: which
 * log (its generation) and the position just past that event. A tab that reconnects sends the cursor back
 * (Last-Event-ID) and is replayed exactly the lines it missed: nothing twice, nothing skipped (tabs.ts holds what comes
 * meanwhile). A cursor from another log (`baton up --fresh` replaced it) or too far behind gets `reset`, and the tab
 * loads a fresh snapshot. Status and screens are read on a timer only while a tab is open, and pushed to all tabs, so
 * tabs never poll.
 */
import { LogReplaced, NO_LOG } from '../bus/events.js';
import { isRecordId } from '../core/ids.js';
import type { Config } from '../config/config.js';
import type { Archive, EventFeed, Liveness, Status } from '../bus/bus.js';
import { LiveStatus } from './live-status.js';
import { sse } from './sse.js';
import type { FeedEvent } from './api.js';
import { Tabs, type Joining, type Sink } from './tabs.js';
import { Transcript } from './transcript.js';

/** A tab further behind than this is told to reload instead of being replayed line by line. */
const MAX_REPLAY_BYTES = 4 * 1024 * 1024;
/** Events a snapshot carries for the events panel (the page keeps as many). */
const RECENT = 40;

interface FeedOptions {
  statusEveryMs?: number;
  screensEveryMs?: number;
  onError?: (err: unknown) => void;
}

const cursorOf = (gen: string, offset: number) => `${gen}:${offset}`;
export function parseCursor(s: string): { gen: string; offset: number } | null {
  const m = /^([0-9a-z-]{1,40}):(\d{1,15})$/.exec(s);
  return m ? { gen: m[1]!, offset: Number(m[2]) } : null;
}

export class Feed {
  readonly transcript: Transcript;
  /** Status and screens, pushed to every tab when they change. */
  readonly live: LiveStatus;
  /** Bytes of events.jsonl turned into events so far (always the end of a whole line). */
  private offset = 0;
  private gen = NO_LOG;
  /** The log ends inside an overlong line: the next look skips the rest of it. */
  private skipping = false;
  private readonly tabs = new Tabs();
  private pumping: Promise<void> = Promise.resolve();
  private pumpQueued = false;
  private follower: { close(): void } | null = null;
  /** The last events read, for a snapshot's events panel (without them it stayed empty until a new event came). */
  private recent = new Recent();
  private timers: NodeJS.Timeout[] = [];
  private closed = false;
  private readonly opts: Required<FeedOptions>;

  constructor(
    config: Config,
    private readonly bus: EventFeed & Archive & Status & Liveness,
    opts: FeedOptions = {},
  ) {
    this.transcript = new Transcript(bus);
    this.opts = { statusEveryMs: 4000, screensEveryMs: 3000, onError: () => {}, ...opts };
    this.live = new LiveStatus(config, bus, {
      push: (chunk) => this.tabs.broadcast(chunk),
      watched: () => this.tabs.size > 0 && !this.closed,
      onError: this.opts.onError,
    });
  }

  /** The last events up to the cursor, oldest first. */
  get recentEvents(): Array<Record<string, unknown>> {
    return this.recent.list();
  }

  /** Where the feed is now: what a snapshot taken this moment has seen. */
  get cursor(): string {
    return cursorOf(this.gen, this.offset);
  }

  /** Tells a tab to load a fresh snapshot. */
  private reset = (): string => sse('reset', { cursor: this.cursor });

  async start(): Promise<void> {
    await this.rebase();
    await this.pump();
    await this.live.refreshStatus();
    this.follower = this.bus.events.follow(() => this.schedulePump());
    this.timers.push(
      // Events bring a fresh status at once; the timer catches what has no event (a pane that died).
      setInterval(() => this.tabs.size && void this.live.refreshStatus(), this.opts.statusEveryMs),
      setInterval(() => this.tabs.size && void this.live.refreshScreens(), this.opts.screensEveryMs),
      setInterval(() => this.tabs.broadcast(': keep-alive\n\n'), 15_000),
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers) clearInterval(t);
    this.follower?.close();
    await this.pumping.catch(() => {});
    this.live.close();
  }

  /**
   * Read the conversation afresh: the archive's index, and the log up to its end (for reminder
   * counts). At start, and when events.jsonl was replaced. Everything is swapped in at once, so a
   * snapshot never pairs the new transcript with the old cursor.
   */
  private async rebase(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      // Where the log ends before the archive is read: anything delivered later is a line after it.
      const { gen, end } = await this.bus.events.head();
      const ids = await this.transcript.read();
      const nudges = new Map<string, number>();
      const recent = new Recent();
      try {
        const r = await this.bus.events.read(gen, 0, end, (e) => {
          count(nudges, e);
          recent.add(e);
        });
        this.transcript.replace(ids, nudges);
        this.recent = recent;
        this.offset = r.last;
        this.skipping = r.skipping;
        this.gen = gen;
        return;
      } catch (err) {
        if (!(err instanceof LogReplaced) || attempt === 3) throw err; // replaced again while being read
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
    const leave = await this.tabs.join(sink, async (tab) => {
      try {
        if (this.live.status) tab.send(sse('status', this.live.status));
        if (Object.keys(this.live.screens).length) tab.send(sse('screens', this.live.screens));
        if (from !== undefined) await this.replay(tab, from, until);
      } catch (err) {
        this.opts.onError(err);
        tab.send(this.reset()); // the tab reloads rather than miss something
      }
    });
    // With no tab open nothing was read: the status just sent may be old, so read it again now.
    this.live.soon();
    void this.live.refreshScreens();
    return leave;
  }

  /** The events a joining tab missed since its cursor `from`, up to `until`; `reset` when that cannot be. */
  private async replay(tab: Joining, from: string, until: number): Promise<void> {
    const c = parseCursor(from);
    const gen = this.gen;
    // A tab that saw nothing before the log existed may read it from its start.
    const start = c && (c.gen === gen || (c.gen === NO_LOG && c.offset === 0)) ? c.offset : null;
    if (start === null || start > until || until - start > MAX_REPLAY_BYTES) {
      tab.send(this.reset());
      return;
    }
    // Labelled with the generation the cursor was checked against: the file is checked to be that one.
    const send = async (e: Record<string, unknown>, end: number) =>
      tab.alive && tab.send(await render(this.transcript, e, end, gen));
    await this.bus.events.read(gen, start, until, send);
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
    const head = await this.bus.events.head();
    const size = head.end;
    // The first daemon just made the log.
    if (head.gen !== NO_LOG && this.gen === NO_LOG && this.offset === 0) this.gen = head.gen;
    if (head.gen !== this.gen || size < this.offset) {
      // Another conversation (the log replaced, removed or truncated): read it afresh; every tab reloads.
      await this.rebase();
      this.tabs.broadcast(this.reset());
      return this.live.soon();
    }
    if (size === this.offset) return;
    const gen = this.gen;
    const take = async (e: Record<string, unknown>, end: number) => {
      count(this.transcript.nudges, e);
      this.recent.add(e);
      if (isDelivery(e)) this.transcript.add(e.id);
      const chunk = await render(this.transcript, e, end, gen);
      // Offset and broadcast move together: every line before `offset` has reached every live tab.
      this.offset = end;
      this.tabs.broadcast(chunk);
    };
    let r: { last: number; skipping: boolean };
    try {
      r = await this.bus.events.read(gen, this.offset, size, take, { skipping: this.skipping });
    } catch (err) {
      if (!(err instanceof LogReplaced)) throw err;
      await this.rebase(); // replaced between the look and the read
      this.tabs.broadcast(this.reset());
      return;
    }
    this.offset = Math.max(this.offset, r.last); // past lines that were not JSON, too
    this.skipping = r.skipping;
    this.live.soon();
  }
}

function isDelivery(e: Record<string, unknown>): e is Record<string, unknown> & { id: string } {
  return (e.event === 'delivered' || e.event === 'sent') && typeof e.id === 'string' && isRecordId(e.id);
}

function count(nudges: Map<string, number>, e: Record<string, unknown>): void {
  if (e.event === 'nudged' && typeof e.reply_to === 'string') nudges.set(e.reply_to, (nudges.get(e.reply_to) ?? 0) + 1);
}

/** The last RECENT events, oldest first. */
class Recent {
  private events: Array<Record<string, unknown>> = [];

  add(e: Record<string, unknown>): void {
    this.events.push(e);
    if (this.events.length > RECENT * 2) this.events.splice(0, this.events.length - RECENT);
  }

  list(): Array<Record<string, unknown>> {
    return this.events.slice(-RECENT);
  }
}

/** One event as the tabs get it: with its bubble (a delivery) or its reminder count, under its cursor. */
async function render(transcript: Transcript, e: Record<string, unknown>, end: number, gen: string): Promise<string> {
  const data: FeedEvent = { e };
  if (isDelivery(e)) {
    data.bubble = await transcript.bubble(e.id);
    data.pos = transcript.position(e.id);
  }
  if (e.event === 'nudged' && typeof e.reply_to === 'string') data.nudges = transcript.nudges.get(e.reply_to) ?? 0;
  return sse('baton', data, cursorOf(gen, end));
}
