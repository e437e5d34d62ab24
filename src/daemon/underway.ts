/**
 * The one delivery not yet stamped (courier.ts types it). Its own part because until its Enter nothing else may be
 * typed into its receiver's pane — not an ending notice (conductor.ts), not a person's message (steering.ts) — and
 * the conductor is made before the courier, so both are given this instead of one another.
 */
import type { Delivery } from '../core/delivery.js';

export class Underway {
  delivery: Delivery | null = null;

  /** The receiver of the delivery not yet stamped (its paste may be in the box without its Enter). */
  get to(): string | null {
    return this.delivery?.record.receiver ?? null;
  }

  get busy(): boolean {
    return this.delivery !== null;
  }
}
