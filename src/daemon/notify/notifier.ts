/**
 * Telling the person (docs/protocol.md §12): every event its daemon emits is offered here (`observe`, from the
 * bus's event log: bus/events.ts `observed`), and so are the daemon's own troubles no event can carry (`trouble`:
 * a lease lost — a fenced daemon's log writes nothing —, a database away). What a person is told about, and
 * when, is core/notify/; this is the queue and the sending.
 *
 * Off the delivery path, whatever a sink does: `observe` only maps, folds and queues (no await, never throws);
 * each sink has its own queue and sends one notification at a time on its own. A sink that hangs holds only its
 * own queue, which is bounded: past QUEUE_MAX the oldest is dropped and counted (`status` shows it). Every
 * attempt ends within the sink's `timeout_s`; retries stop 2 min after the first attempt (core/notify/retry.ts).
 */
import { basename, dirname } from 'node:path';
import type { Config, NotifySinkConfig } from '../../config/config.js';
import { dashboardUrl } from '../../config/dashboard-record.js';
import { type NotifyRecord, type SinkRecord, writeNotifyRecord } from '../../config/notify-record.js';
import { Cooldown, type Notification } from '../../core/notify/cooldown.js';
import { type Happening, type NotifyError, observe } from '../../core/notify/happening.js';
import { type NotifyContext, type NotifyPayload, payloadOf } from '../../core/notify/payload.js';
import { type Attempt, retryDelay, SINK_RETRY, type RetryPlan } from '../../core/notify/retry.js';
import type { Logger } from '../../lib/log.js';
import { attempt, kindOf, targetOf } from './send.js';

/** A sink's queue at most: a notification older than the ones behind it is the one dropped. */
export const QUEUE_MAX = 50;

type NotifyConfig = Pick<Config, 'notify' | 'host' | 'file' | 'baseDir' | 'messageDir' | 'bus'>;

/** The conversation's name in a notification: its folder, or its name in the database. */
export const conversationOf = (c: Pick<Config, 'bus' | 'file' | 'messageDir'>): string =>
  c.bus.kind === 'postgres' ? c.bus.conversation : basename(c.file ? dirname(c.file) : c.messageDir);

/** A sink's name in `status` and `notify --test`. */
export const labelOf = (s: NotifySinkConfig, i: number): string => s.name ?? `${kindOf(s)} ${i + 1}`;

export interface NotifierOptions {
  config: NotifyConfig;
  log: Logger;
  /** Injected in tests: the clock, one attempt, the waits between retries, the record's writer. */
  now?: () => number;
  send?: (sink: NotifySinkConfig, p: NotifyPayload) => Promise<Attempt>;
  sleep?: (ms: number) => Promise<void>;
  retry?: RetryPlan;
  record?: (r: NotifyRecord) => void;
  /** The dashboard's address for this conversation when one runs (for ntfy's click). */
  dashboard?: () => string | null;
}

class Sink {
  readonly queue: Notification[] = [];
  readonly cooldown: Cooldown;
  busy = false;
  readonly rec: SinkRecord;

  constructor(
    readonly cfg: NotifySinkConfig,
    i: number,
  ) {
    this.cooldown = new Cooldown(cfg.cooldown_s * 1000);
    const counts = { last_success: null, last_failure: null, sent: 0, failed: 0, folded: 0, dropped: 0 };
    this.rec = { label: labelOf(cfg, i), kind: kindOf(cfg), target: targetOf(cfg), events: [...cfg.events], ...counts };
  }
}

export class Notifier {
  private readonly sinks: Sink[];
  private readonly now: () => number;
  private timer: NodeJS.Timeout | null = null;
  private recordTimer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(private readonly o: NotifierOptions) {
    this.sinks = o.config.notify.map((cfg, i) => new Sink(cfg, i));
    this.now = o.now ?? Date.now;
  }

  get active(): boolean {
    return this.sinks.length > 0;
  }

  /** An event its daemon emitted (name and fields as logged). Synchronous, cheap, never throws. */
  observe(event: string, fields: Record<string, unknown> = {}): void {
    if (this.closed || !this.sinks.length) return;
    try {
      const o = observe(event, fields);
      if (o?.kind === 'happened') this.offer(o.happening);
      else if (o?.kind === 'over') for (const s of this.sinks) s.cooldown.over(o.event, o.agent);
    } catch (err) {
      this.o.log.warn(`notify: ${String(err)}`);
    }
  }

  /** A trouble of the daemon's own, which no event in its log carries (a fenced daemon's log writes nothing). */
  trouble(error: NotifyError, details: Record<string, unknown>): void {
    if (this.closed || !this.sinks.length) return;
    this.offer({ event: 'error', agent: null, error, details });
  }

  /** Stop taking happenings; what is being sent goes on in the background until its attempt ends. */
  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.writeRecord();
  }

  /** Wait at most `ms` for what is queued or sent: else `baton down` right at a finish loses its notification. */
  async drain(ms: number): Promise<void> {
    const until = performance.now() + ms;
    while (this.sinks.some((s) => s.busy || s.queue.length) && performance.now() < until)
      await new Promise((r) => setTimeout(r, 20));
  }

  /** What `status` reads (also written beside the config). */
  records(): SinkRecord[] {
    return this.sinks.map((s) => ({ ...s.rec }));
  }

  private offer(h: Happening): void {
    const now = this.now();
    for (const s of this.sinks) {
      if (!(s.cfg.events as readonly string[]).includes(h.event)) continue;
      const n = s.cooldown.offer(h, now);
      if (n) this.enqueue(s, n);
      else s.rec.folded++;
    }
    this.plan();
    this.recordSoon();
  }

  private enqueue(s: Sink, n: Notification): void {
    s.queue.push(n);
    if (s.queue.length > QUEUE_MAX) {
      s.queue.shift();
      s.rec.dropped++;
      if (s.rec.dropped === 1 || s.rec.dropped % 100 === 0)
        this.o.log.warn(`notify: ${s.rec.label} is behind; ${s.rec.dropped} notification(s) dropped so far`);
    }
    if (!s.busy) void this.pump(s);
  }

  /** The next fold to tell when its cooldown passes: one timer for every sink, not holding the process open. */
  private plan(): void {
    if (this.closed) return;
    const next = Math.min(...this.sinks.map((s) => s.cooldown.nextDue() ?? Infinity));
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (next === Infinity) return;
    this.timer = setTimeout(() => this.flush(), Math.max(0, next - this.now()) + 1).unref();
  }

  private flush(): void {
    this.timer = null;
    const now = this.now();
    for (const s of this.sinks) for (const n of s.cooldown.due(now)) this.enqueue(s, n);
    this.plan();
  }

  private context(): NotifyContext {
    const c = this.o.config;
    return { conversation: conversationOf(c), host: c.host, url: (this.o.dashboard ?? (() => dashboardUrl(c)))() };
  }

  private async pump(s: Sink): Promise<void> {
    s.busy = true;
    try {
      for (let n = s.queue.shift(); n; n = s.queue.shift()) await this.deliver(s, payloadOf(n, this.context()));
    } catch (err) {
      this.o.log.warn(`notify: ${s.rec.label}: ${String(err)}`);
    } finally {
      s.busy = false;
    }
  }

  /** One notification to one sink, retried with backoff while worth it. */
  private async deliver(s: Sink, p: NotifyPayload): Promise<void> {
    const send = this.o.send ?? ((sink, payload) => attempt(sink, payload, { cwd: this.o.config.baseDir }));
    const sleep = this.o.sleep ?? ((ms) => new Promise<void>((r) => setTimeout(r, ms).unref()));
    const started = this.now();
    for (let failures = 0; ; ) {
      const a = await send(s.cfg, p);
      const at = new Date(this.now()).toISOString();
      if (a.kind === 'sent') {
        s.rec.last_success = { at, event: p.event };
        s.rec.sent++;
        this.recordSoon();
        return;
      }
      failures++;
      const wait = a.retry ? retryDelay(this.o.retry ?? SINK_RETRY, failures, this.now() - started) : null;
      s.rec.last_failure = { at, event: p.event, error: a.error };
      this.recordSoon();
      if (wait === null) {
        s.rec.failed++;
        this.o.log.warn(`notify: ${s.rec.label} (${s.rec.target}) did not take the ${p.event} event: ${a.error}`);
        return;
      }
      this.o.log.debug(`notify: ${s.rec.label}: ${a.error}; trying again in ${wait} ms`);
      await sleep(wait);
    }
  }

  /** Written at most every 250 ms: a storm of outcomes is one write. */
  private recordSoon(): void {
    if (this.recordTimer) return;
    this.recordTimer = setTimeout(() => {
      this.recordTimer = null;
      this.writeRecord();
    }, 250).unref();
  }

  private writeRecord(): void {
    const c = this.o.config;
    const r: NotifyRecord = { pid: process.pid, updated_at: new Date().toISOString(), sinks: this.records() };
    try {
      if (this.o.record) this.o.record(r);
      else if (c.file && this.sinks.length) writeNotifyRecord(c.file, c.host, r);
    } catch (err) {
      this.o.log.debug(`notify: cannot write its record: ${String(err)}`);
    }
  }
}
