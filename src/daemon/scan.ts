/**
 * Every direction's queue looked at once per pass: the message to deliver is the first, by name, of the queues
 * whose sender holds the turn. On the way, out-of-turn messages are held in place (one `held` event each), one the
 * policy never allows is rejected, one past its expires_at is refused with that reason, and one still being
 * written keeps its place. What the daemon knows of a waiting message beyond the bus (its `held` event logged, when
 * its turn came) is kept here by its key while it waits.
 */
import type { Clock, Events, Queues, TurnState, Waiting } from '../bus/bus.js';
import type { Timing } from '../core/delivery.js';
import { hasExpired } from '../core/message.js';
import { closingOpen, type Decision, decide } from '../core/turns.js';
import type { Uses } from './context.js';

export interface QueueScanParts extends Uses<'log' | 'rules' | 'wakeIn'> {
  bus: Queues & TurnState & Events & Clock;
}

/** The daemon's own record of one waiting message. */
interface Seen {
  /** The message's firstSeen when this record was made: another one means the bus saw it afresh. */
  firstSeen: number;
  /** A `held` event was logged for it (once per message; again after a resume). */
  heldLogged: boolean;
  /** performance.now() when its turn came (the first time it could be delivered): its held time ends here. */
  turnSince?: number;
}

export class QueueScan {
  /** By the waiting message's key; forgotten once it no longer waits. */
  private readonly seen = new Map<string, Seen>();

  constructor(private readonly p: QueueScanParts) {}

  /** Report every held message again (a resume: the reasons they wait have changed). */
  forgetHeld(): void {
    for (const s of this.seen.values()) s.heldLogged = false;
  }

  /** The message whose turn it is, if any; every other ready message held or rejected on the way. */
  async next(): Promise<Waiting | null> {
    const { bus, rules, log } = this.p;
    let best: Waiting | null = null;
    const queues = await bus.queues();
    // Forget what no longer waits; only once the records outnumber the waiting files (a stale record is
    // never used: a file seen afresh has another firstSeen), so a pass over a long queue builds no set.
    const total = queues.reduce((n, q) => n + q.items.length, 0);
    if (this.seen.size > total) {
      const waiting = new Set(queues.flatMap((q) => q.items.map((w) => w.key)));
      for (const key of this.seen.keys()) if (!waiting.has(key)) this.seen.delete(key);
    }
    const now = bus.now(); // the conversation's clock: expires_at was written on another machine's
    let expiry = Infinity;
    const state = bus.state();
    for (const q of queues) {
      let head = true;
      // The same for every message of a folder (its direction and the state decide): asked once per folder.
      let folder: Decision | null = null;
      for (const w of q.items) {
        // Still waiting when its expires_at passed: refused with that reason, never dropped silently.
        if (w.ready && hasExpired(w.message, now)) {
          await bus.reject(w, `expired: its expires_at (${w.message!.expires_at}) passed while it waited`);
          continue;
        }
        if (w.message?.expires_at) expiry = Math.min(expiry, Date.parse(w.message.expires_at));
        if (!w.ready) {
          head = false; // an earlier file still being written keeps its place in the order
          continue;
        }
        // The closing agent's outcome gets through a finish (turns.closing): decided by its own type.
        const type = w.message?.type;
        const own = closingOpen(state, w.direction.from, type) ? decide(state, { ...w.direction, type }, rules) : null;
        const d = own ?? (folder ??= decide(state, w.direction, rules));
        if (d.action === 'reject') {
          await bus.reject(w, d.reason);
        } else if (d.action === 'hold') {
          if (!this.of(w).heldLogged) log.info(`held ${w.direction.name}/${w.name}: ${d.reason}`);
          await this.held(w, d.reason);
        } else if ((head || own) && (!best || w.name < best.name)) {
          // (An outcome passes the held messages before it in its folder: they wait for a resume, it does not.)
          this.of(w).turnSince ??= performance.now(); // its turn came: the time held in its folder ends here
          best = w;
        }
        head = false;
      }
    }
    if (expiry !== Infinity) this.p.wakeIn(Math.max(0, expiry - now) + 5);
    return best;
  }

  /** Log a `held` event for `w`, once (again after a resume): out of turn, or behind an approval. */
  async held(w: Waiting, reason: string): Promise<void> {
    const seen = this.of(w);
    if (seen.heldLogged) return;
    seen.heldLogged = true;
    await this.p.bus.events.emit('held', { file: w.name, direction: w.direction.name, reason });
  }

  /** When `w` was first seen, and when its turn came (first seen, if it never waited for its turn). */
  timing(w: Waiting): Timing {
    return { firstSeen: w.firstSeen, turnSince: this.of(w).turnSince ?? w.firstSeen };
  }

  private of(w: Waiting): Seen {
    let s = this.seen.get(w.key);
    // Put back in line by the bus (a turn step found it changed), a message is seen afresh: a new start.
    if (s?.firstSeen !== w.firstSeen) this.seen.set(w.key, (s = { firstSeen: w.firstSeen, heldLogged: false }));
    return s;
  }
}
