/**
 * What a daemon's side of a bus rejected since the daemon last asked (Queues.takeRejected): kept in memory
 * until taken, the latest 100 at most — a daemon that never asks (a one-shot answer to a person's request)
 * holds no more than that.
 */
import type { Rejected } from './queues.js';

const KEPT = 100;

export class RejectedSince {
  private items: Rejected[] = [];

  add(r: Rejected): void {
    this.items.push(r);
    if (this.items.length > KEPT) this.items.shift();
  }

  take(): Rejected[] {
    return this.items.splice(0);
  }
}
