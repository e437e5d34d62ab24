/**
 * The one delivery not yet stamped (courier.ts types it, phase by phase). Its own small part because
 * more than the courier must know of it: until its Enter, nothing else may be typed into its receiver's
 * pane — not a notice that the conversation ended (conductor.ts), not a person's message (steering.ts).
 * The conductor is made before the courier (the courier tells it of each delivery), so both are given
 * this instead of one another.
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
