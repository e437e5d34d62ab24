/**
 * Taking one message: its receiver's pane must take it, then the turn step commits it and the courier types it.
 * Its own part because the pass and a person's approval (steering) both take messages and the conductor plans each
 * new turn: given to each, it lets them be made one after another with no loop between them.
 */
import type { Approval, TurnStep, Waiting } from '../bus/bus.js';
import type { Timing } from '../core/delivery.js';
import type { ArchiveRecord } from '../core/record.js';
import { decide } from '../core/turns.js';
import type { Courier } from './courier.js';
import type { Pipeline } from './pipeline.js';
import type { Uses } from './context.js';

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

export interface TakerParts extends Uses<'rules'> {
  bus: TurnStep;
  typing: Pick<Pipeline, 'gate'>;
  courier: Courier;
  /** A turn step committed: a new turn, whose reminders are planned afresh (conductor.ts). */
  committed(record: ArchiveRecord): void;
  /** When a waiting message was first seen and when its turn came (scan.ts keeps it). */
  timing(w: Waiting): Timing;
}

export class Taker {
  constructor(private readonly p: TakerParts) {}

  /**
   * Deliver `w` (a waiting message, or an approval a person approved): its receiver's pane must be able
   * to take it, then the turn step commits and the courier types it. `extra` goes into the record.
   */
  async take(w: Waiting | Approval, extra: Record<string, unknown> = {}): Promise<Take> {
    const { bus, rules, typing, courier } = this.p;
    // Not committed while the receiver's pane cannot take it: the message stays where it is (docs/protocol.md §6).
    const ready = await typing.gate(w.direction.to);
    if (!ready.ok) return { kind: 'unavailable', reason: ready.reason };
    const type = (w as { message?: { type?: string } | null }).message?.type;
    const c = await bus.commit(w, (state) => decide(state, { ...w.direction, type }, rules), extra);
    if (c.kind === 'refused') return { kind: 'refused', reason: c.decision.reason };
    if (c.kind !== 'committed') return { kind: c.kind };
    this.p.committed(c.record);
    const now = performance.now();
    const timing = 'firstSeen' in w ? this.p.timing(w) : { firstSeen: now, turnSince: now };
    courier.begin(c.record, timing, { typed: false });
    const delivered = await courier.advance(ready.pane);
    return delivered ? { kind: 'delivered', id: c.record.id } : { kind: 'typing', id: c.record.id };
  }
}
