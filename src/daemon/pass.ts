/**
 * One pass of the delivery loop: finish the delivery under way, answer a person's requests, let the
 * conductor remind or end, then look at every direction's queue and deliver at most one message — the
 * first, by name, of the queues whose sender holds the turn. Out-of-turn messages are held where they
 * are (one `held` event each); one the policy never allows is rejected; a message still being written
 * keeps its place in line.
 */
import type { Approval, DeliveryBus, Waiting } from '../bus/bus.js';
import type { ArchiveRecord } from '../core/record.js';
import type { Config } from '../config/config.js';
import { decide, type Rules } from '../core/turns.js';
import { hasExpired } from '../core/message.js';
import type { Logger } from '../lib/log.js';
import type { Availability } from './availability.js';
import type { Courier } from './courier.js';

/** What taking a message did. */
export type Take =
  /** Committed and typed, stamped delivered. */
  | { kind: 'delivered'; id: string }
  /** Committed; typing it is being retried (the courier keeps it). */
  | { kind: 'typing'; id: string }
  /** The receiver's pane cannot take it now: it stays where it is. */
  | { kind: 'unavailable'; reason: string }
  /** Not its turn after all, or not allowed (the state moved). */
  | { kind: 'refused'; reason: string }
  /** Gone, or changed since it was examined (it is examined again). */
  | { kind: 'gone' }
  | { kind: 'changed' };

export class Pass {
  /** After a resume, held messages are reported again (once each). */
  private heldForgotten = false;

  constructor(
    private readonly config: Config,
    private readonly rules: Rules,
    private readonly bus: DeliveryBus,
    private readonly courier: Courier,
    private readonly availability: Availability,
    private readonly log: Logger,
    private readonly hooks: {
      /** What the agents' hooks reported (receipts, turn ends): handled first. */
      readHooks(): Promise<boolean>;
      /** A person's requests may be waiting. */
      requestsWaiting(): boolean;
      runRequests(): Promise<void>;
      conduct(): Promise<void>;
      /** A turn step committed: a new turn, whose reminders are planned afresh. */
      committed(record: ArchiveRecord): void;
      /** Ask for a pass at most `ms` from now (a waiting message expires then). */
      wakeIn(ms: number): void;
      /** A stamped message whose receipt never came though its agent's hooks work (unconfirmed.ts). */
      suspect(): { id: string; agent: string } | undefined;
    },
  ) {}

  /** Report every held message again (a resume: the reasons they wait have changed). */
  forgetHeld(): void {
    this.heldForgotten = true;
  }

  /** True when it did something another pass should follow at once. */
  async run(): Promise<boolean> {
    await this.hooks.readHooks();
    // A cut-short delivery goes first; until it is done nothing else is delivered (but bad files are still rejected).
    const free = !this.courier.busy || (await this.courier.advance());
    // A person's requests are answered even while a delivery is stuck (each one says what it cannot do
    // now); reminders wait until nothing is half-typed.
    if (this.hooks.requestsWaiting()) await this.hooks.runRequests();
    if (free) await this.hooks.conduct();
    const lost = free ? this.hooks.suspect() : undefined;
    if (lost && (await this.retype(lost))) return true;

    let best: Waiting | null = null;
    const queues = await this.bus.queues();
    if (this.heldForgotten) for (const q of queues) for (const w of q.items) w.heldLogged = false;
    this.heldForgotten = false;
    const now = Date.now();
    let expiry = Infinity;
    for (const q of queues) {
      let head = true;
      for (const w of q.items) {
        // Still waiting when its expires_at passed (seed 000): refused with that reason, never dropped silently.
        if (w.ready && hasExpired(w.message, now)) {
          await this.bus.reject(w, `expired: its expires_at (${w.message!.expires_at}) passed while it waited`);
          continue;
        }
        if (w.message?.expires_at) expiry = Math.min(expiry, Date.parse(w.message.expires_at));
        if (!w.ready) {
          head = false; // an earlier file still being written keeps its place in the order
          continue;
        }
        const d = decide(this.bus.state(), w.direction, this.rules);
        if (d.action === 'reject') {
          await this.bus.reject(w, d.reason);
        } else if (d.action === 'hold') {
          if (!w.heldLogged) {
            w.heldLogged = true;
            this.log.info(`held ${w.direction.name}/${w.name}: ${d.reason}`);
            await this.bus.events.emit('held', { file: w.name, direction: w.direction.name, reason: d.reason });
          }
        } else if (head && (!best || w.name < best.name)) {
          w.turnSince ??= performance.now(); // its turn came: the time held in its folder ends here
          best = w;
        }
        head = false;
      }
    }
    if (expiry !== Infinity) this.hooks.wakeIn(Math.max(0, expiry - now) + 5);
    if (!free || !best) return false;
    if (this.config.turns.moderated) return (await this.bus.moderate(best)) !== 'held';
    return (await this.take(best)).kind !== 'unavailable';
  }

  /**
   * Type again, flagged `(redelivered)`, a message whose receipt never came though its agent's hooks work
   * (issue 16) — only when it provably did not arrive: still the conversation's last message, its receiver
   * holding the turn and having answered nothing, and its pane showing an empty input box (the text is not
   * there to be submitted). Otherwise it is only reported. At most once per message (unconfirmed.ts).
   */
  private async retype(s: { id: string; agent: string }): Promise<boolean> {
    const st = this.bus.state();
    const record = await this.bus.record(s.id);
    if (!record || record.received || record.receiver !== s.agent) return false;
    if (st.last_message_id !== s.id || st.current_turn !== s.agent || st.finished || st.paused) return false;
    if ((await this.bus.waitingFrom(s.agent)) > 0) return false; // it answered: it had the message
    const ready = await this.availability.check(s.agent); // an empty box, no dialog, no text of anyone's
    if (!ready.ok) {
      this.log.warn(`${s.id} → ${s.agent}: not typed again (${ready.reason})`);
      return false;
    }
    this.log.warn(
      `${s.id} → ${s.agent}: its model never got it (no prompt from its hook, an empty box, no answer); typing it again, flagged`,
    );
    const now = performance.now();
    this.courier.begin(record, { firstSeen: now, turnSince: now }, { typed: true, saved: true });
    await this.courier.advance(ready.pane);
    return true;
  }

  /**
   * Deliver `w` (a waiting message, or an approval a person approved): its receiver's pane must be able
   * to take it, then the turn step commits and the courier types it. `extra` goes into the record.
   */
  async take(w: Waiting | Approval, extra: Record<string, unknown> = {}): Promise<Take> {
    // Not committed while the receiver's pane is missing: the message stays where it is (SPEC §6).
    const ready = await this.availability.check(w.direction.to);
    if (!ready.ok) return { kind: 'unavailable', reason: ready.reason };
    const c = await this.bus.commit(w, (state) => decide(state, w.direction, this.rules), extra);
    if (c.kind === 'refused') return { kind: 'refused', reason: c.decision.reason };
    if (c.kind !== 'committed') return { kind: c.kind };
    this.hooks.committed(c.record);
    const now = performance.now();
    const timing =
      'firstSeen' in w
        ? { firstSeen: w.firstSeen, turnSince: w.turnSince ?? w.firstSeen }
        : { firstSeen: now, turnSince: now };
    this.courier.begin(c.record, timing, { typed: false, saved: c.saved });
    const delivered = await this.courier.advance(ready.pane);
    return delivered ? { kind: 'delivered', id: c.record.id } : { kind: 'typing', id: c.record.id };
  }
}
