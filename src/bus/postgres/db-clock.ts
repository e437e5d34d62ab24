/**
 * The conversation's clock on the PostgreSQL bus (bus/clock.ts): the database's time, as this process
 * measures it. Every heartbeat of the lease (every second, lease.ts) reads `clock_timestamp()` on its way,
 * so no statement runs for the clock alone: the database's time then fell between the moments the
 * heartbeat was sent and answered, and is taken to be at the middle of that round trip (off by at most
 * half of it). Of the last few samples the one with the shortest round trip counts — a heartbeat that
 * waited for a row lock says little. Between samples the time runs on this process's monotonic clock, so a
 * local clock that is set wrong, or jumps, changes nothing.
 */
import type { Clock } from '../clock.js';

/** How many recent samples are kept (one a second): the shortest round trip among them is used. */
const KEEP = 8;
/** A step back smaller than this is a new sample's jitter, held off; a larger one is a correction. */
const SETTLE_MS = 1000;

interface Sample {
  /** The database's time minus this process's (performance.timeOrigin + performance.now()), in ms. */
  offset: number;
  rtt: number;
}

export class DbClock implements Clock {
  private readonly samples: Sample[] = [];
  /** Until the first sample (the lease's first statement): this process's own clock. */
  private offset = 0;
  private last = 0;

  /**
   * The database said `dbMs` (ms since the epoch) to a statement sent at `sent` and answered at `got`
   * (both performance.now()).
   */
  sample(dbMs: number, sent: number, got: number): void {
    if (!Number.isFinite(dbMs) || got < sent) return;
    this.samples.push({ offset: dbMs - (performance.timeOrigin + (sent + got) / 2), rtt: got - sent });
    if (this.samples.length > KEEP) this.samples.shift();
    this.offset = this.samples.reduce((best, s) => (s.rtt < best.rtt ? s : best)).offset;
  }

  now(): number {
    const t = Math.round(performance.timeOrigin + performance.now() + this.offset);
    // A new sample moves the offset by a few ms either way; the time never goes back for that (a delivery's
    // stamp is compared with its turn's start). The first sample may move it by hours: that is the fix.
    this.last = t < this.last && this.last - t < SETTLE_MS ? this.last : t;
    return this.last;
  }
}
