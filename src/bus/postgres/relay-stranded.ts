/**
 * Claimed files whose store failed, stored again while the daemon runs, with backoff (250 ms doubling to 5 s),
 * oldest claim first, a folder waiting behind its own; one log line when an outage begins and one when it ends.
 * (Only start-up once read `.relaying/`: one failed insert stranded the conversation while status said nothing waited.)
 */
import type { Direction } from '../../config/config.js';
import type { Logger } from '../../lib/log.js';
import type { Hint } from '../bus.js';
import { claimOrder, nameOf } from './relay-claims.js';
import { timing } from '../../lib/timing.js';

/** A file claimed into `dir` (its folder's `.relaying/`) as `as` (its path there: relay-claims.ts). */
export type ClaimedFile = { d: Direction; dir: string; as: string };

const FIRST_MS = timing.relayRetryFirstMs;
const MAX_MS = timing.relayRetryMaxMs;

export class Stranded {
  private readonly files = new Map<string, ClaimedFile>();
  /** The outage under way: since when, the backoff, and whether its first line was logged. */
  private outage: { since: number; delay: number; due: number; said: boolean } | null = null;
  private timer: NodeJS.Timeout | null = null;
  private hint: (h: Hint) => void = () => {};

  constructor(private readonly log: Logger) {}

  /** Wake the daemon through `hint` when a retry is due. */
  wakeWith(hint: (h: Hint) => void): void {
    this.hint = hint;
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.hint = () => {};
  }

  /** Its store failed (`why`: said once per outage; null: the caller says why itself, e.g. the lease). */
  add(f: ClaimedFile, why: string | null): void {
    this.files.set(`${f.dir}/${f.as}`, f);
    const now = performance.now();
    if (!this.outage) this.outage = { since: now, delay: FIRST_MS, due: now + FIRST_MS, said: false };
    else {
      this.outage.delay = Math.min(this.outage.delay * 2, MAX_MS);
      this.outage.due = now + this.outage.delay;
    }
    if (why !== null && !this.outage.said) {
      this.outage.said = true;
      this.log.warn(
        `cannot store ${f.d.name}/${nameOf(f.as)} in the database (${why}); it waits in .relaying/ and is tried again`,
      );
    }
    this.wakeIn(this.outage.due - now);
  }

  /** Stored, put back or gone: no longer stranded; the outage ends with the last one. */
  done(f: ClaimedFile): void {
    if (!this.files.delete(`${f.dir}/${f.as}`) || this.files.size || !this.outage) return;
    const s = ((performance.now() - this.outage.since) / 1000).toFixed(1);
    if (this.outage.said) this.log.info(`the files kept in .relaying/ are stored (after ${s} s)`);
    this.outage = null;
  }

  /** The stranded files to try again now (none before the backoff allows), oldest claim first. */
  due(): ClaimedFile[] {
    if (!this.files.size || (this.outage && performance.now() < this.outage.due)) return [];
    return [...this.files.values()].sort((a, b) => claimOrder(a.as, b.as));
  }

  /** Has this folder a stranded file (its later files wait behind it)? */
  holds(d: Direction): boolean {
    for (const f of this.files.values()) if (f.d.name === d.name) return true;
    return false;
  }

  /** How many stranded files these folders have. */
  count(directions: readonly string[]): number {
    let n = 0;
    for (const f of this.files.values()) if (directions.includes(f.d.name)) n++;
    return n;
  }

  private wakeIn(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(
      () => {
        this.timer = null;
        this.hint({ kind: 'messages' });
      },
      Math.max(0, ms),
    );
    this.timer.unref();
  }
}
