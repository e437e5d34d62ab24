/**
 * Looking at every direction's queue once per pass: the message to deliver now is the first, by name, of
 * the queues whose sender holds the turn. On the way, out-of-turn messages are held where they are (one
 * `held` event each), one the policy never allows is rejected, one whose expires_at passed is refused with
 * that reason, and a message still being written keeps its place in line.
 */
import type { Events, Queues, TurnState, Waiting } from '../bus/bus.js';
import { hasExpired } from '../core/message.js';
import { decide, type Rules } from '../core/turns.js';
import type { Logger } from '../lib/log.js';

export interface QueueScanParts {
  bus: Queues & TurnState & Events;
  rules: Rules;
  log: Logger;
  /** Ask for a pass at most `ms` from now (a waiting message expires then). */
  wakeIn(ms: number): void;
}

export class QueueScan {
  /** After a resume, held messages are reported again (once each). */
  private heldForgotten = false;

  constructor(private readonly p: QueueScanParts) {}

  /** Report every held message again (a resume: the reasons they wait have changed). */
  forgetHeld(): void {
    this.heldForgotten = true;
  }

  /** The message whose turn it is, if any; every other ready message held or rejected on the way. */
  async next(): Promise<Waiting | null> {
    const { bus, rules, log } = this.p;
    let best: Waiting | null = null;
    const queues = await bus.queues();
    if (this.heldForgotten) for (const q of queues) for (const w of q.items) w.heldLogged = false;
    this.heldForgotten = false;
    const now = Date.now();
    let expiry = Infinity;
    for (const q of queues) {
      let head = true;
      for (const w of q.items) {
        // Still waiting when its expires_at passed (seed 000): refused with that reason, never dropped silently.
        if (w.ready && hasExpired(w.message, now)) {
          await bus.reject(w, `expired: its expires_at (${w.message!.expires_at}) passed while it waited`);
          continue;
        }
        if (w.message?.expires_at) expiry = Math.min(expiry, Date.parse(w.message.expires_at));
        if (!w.ready) {
          head = false; // an earlier file still being written keeps its place in the order
          continue;
        }
        const d = decide(bus.state(), w.direction, rules);
        if (d.action === 'reject') {
          await bus.reject(w, d.reason);
        } else if (d.action === 'hold') {
          if (!w.heldLogged) {
            w.heldLogged = true;
            log.info(`held ${w.direction.name}/${w.name}: ${d.reason}`);
            await bus.events.emit('held', { file: w.name, direction: w.direction.name, reason: d.reason });
          }
        } else if (head && (!best || w.name < best.name)) {
          w.turnSince ??= performance.now(); // its turn came: the time held in its folder ends here
          best = w;
        }
        head = false;
      }
    }
    if (expiry !== Infinity) this.p.wakeIn(Math.max(0, expiry - now) + 5);
    return best;
  }
}
