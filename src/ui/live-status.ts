/**
 * The dashboard's view of the conversation's status and each agent's screen, read only while a tab is
 * watching and pushed to every tab when it changes. One tmux control-mode client answers all of it, as
 * the daemon's does: a status and a screen read every few seconds would otherwise start a tmux process
 * per pane each time (1.5% of a core at idle). A pane is captured again only after tmux saw activity in
 * its window (capturing every pane every 2.5 s raised the daemon's own p99 to 80–110 ms on 2 cores).
 */
import { collectStatus, PersonRecords, type StatusReport } from '../app/status/status.js';
import type { Archive, Liveness, Status } from '../bus/bus.js';
import type { Config } from '../config/config.js';
import { sanitize } from '../core/compose.js';
import { capture, findPane } from '../terminal/pane.js';
import { Tmux } from '../terminal/tmux.js';
import { sse } from './sse.js';

const SCREEN_CAP = 32 * 1024;
/** A screen is read again when its window showed activity, and at least this often. */
const SCREEN_STALE_MS = 15_000;

export class LiveStatus {
  private readonly tmux = new Tmux({ control: true });
  /** A person's records, read once and then only what is new (status counts catch-ups and notes from them). */
  private readonly people: PersonRecords;
  /** The last status read (null before the first). */
  status: StatusReport | null = null;
  private statusKey = '';
  private statusBusy = false;
  private statusAgain = false;
  private statusSoon: NodeJS.Timeout | null = null;
  private readonly screenText = new Map<string, string | null>();
  private readonly screenRead = new Map<string, { activity: number; at: number }>();
  private screensBusy = false;
  private closed = false;

  constructor(
    private readonly config: Config,
    private readonly bus: Status & Liveness & Pick<Archive, 'record'>,
    private readonly hooks: {
      /** Send an SSE chunk to every tab. */
      push(chunk: string): void;
      /** Is any tab open (nothing is read while none is)? */
      watched(): boolean;
      onError(err: unknown): void;
    },
  ) {
    this.people = new PersonRecords(bus, config.order);
  }

  get screens(): Record<string, string | null> {
    return Object.fromEntries(this.screenText);
  }

  close(): void {
    this.closed = true;
    if (this.statusSoon) clearTimeout(this.statusSoon);
    this.tmux.close();
  }

  /** Read the status again soon (debounced): after an event, or a tab joining. */
  soon(): void {
    if (this.statusSoon || !this.hooks.watched()) return;
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
      const s = await collectStatus(this.config, this.tmux, this.bus, this.people);
      // seconds_in_turn ticks every second; the page counts it from turn_started_at itself.
      const key = JSON.stringify({ ...s, seconds_in_turn: null });
      this.status = s;
      if (key !== this.statusKey) {
        this.statusKey = key;
        this.hooks.push(sse('status', s));
      }
    } catch (err) {
      this.hooks.onError(err);
    } finally {
      this.statusBusy = false;
      if (this.statusAgain) this.soon();
    }
  }

  /**
   * Each agent's visible screen, as plain text (capture-pane without -e: no escape sequences). A pane
   * is captured again only when tmux saw activity in its window, or its copy is getting old.
   */
  async refreshScreens(): Promise<void> {
    if (this.screensBusy || !this.hooks.watched()) return;
    this.screensBusy = true;
    try {
      const changed: Record<string, string | null> = {};
      await Promise.all(
        this.config.order.map(async (name) => {
          const pane = await findPane(this.tmux, this.config.agents[name]!);
          const [last, live] = [this.screenRead.get(name), pane && !pane.dead ? pane : null];
          const fresh = live && last && last.activity === live.activity && Date.now() - last.at < SCREEN_STALE_MS;
          if (fresh && this.screenText.get(name) !== null) return;
          const lines = live ? await capture(this.tmux, live) : null;
          const text = lines ? plain(lines) : null;
          if (pane) this.screenRead.set(name, { activity: pane.activity, at: Date.now() });
          if (this.screenText.get(name) !== text || !this.screenText.has(name)) {
            this.screenText.set(name, text);
            changed[name] = text;
          }
        }),
      );
      if (Object.keys(changed).length) this.hooks.push(sse('screens', changed));
    } catch (err) {
      this.hooks.onError(err);
    } finally {
      this.screensBusy = false;
    }
  }
}

/** A screen as plain text: no control characters but newline and tab, no trailing blank lines, capped. */
function plain(lines: string[]): string {
  const rows = sanitize(lines.join('\n')).split('\n');
  const text = rows.map((l) => l.trimEnd()).join('\n');
  return text.replace(/\n+$/, '').slice(0, SCREEN_CAP);
}
