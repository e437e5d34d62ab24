/**
 * One notification per happening, never a storm (docs/protocol.md §12): the same event for the same agent
 * within `cooldown_s` of the last one told is folded into the next, sent when the cooldown has passed with how
 * many it stands for. Pure. Not "drop repeats": a second dialog two minutes after the first would wait all
 * night with nobody told. Not one per event: a flapping pane or a config saved with a typo would send dozens.
 */
import { foldKey, type Happening, type NotifyEvent } from './happening.js';

/** The latest happening (`at`, ms) of the `count` it stands for (repeats folded in), the first at `since`. */
export type Notification = { happening: Happening; at: number; count: number; since: number };

/** When the last notification for a key went out, and the repeats since, not told yet. */
type Slot = { toldAt: number; folded: { latest: Happening; at: number; count: number; since: number } | null };

export class Cooldown {
  private readonly slots = new Map<string, Slot>();

  constructor(private readonly cooldownMs: number) {}

  /** A happening at `now`: the notification to send now, or null when it was folded (told later by `due`). */
  offer(h: Happening, now: number): Notification | null {
    const key = foldKey(h);
    const slot = this.slots.get(key);
    if (!slot || now - slot.toldAt >= this.cooldownMs) {
      // A fold still pending when its cooldown ended (nobody called `due` yet) is told with this one.
      const before = slot?.folded;
      this.slots.set(key, { toldAt: now, folded: null });
      return { happening: h, at: now, count: 1 + (before?.count ?? 0), since: before?.since ?? now };
    }
    const f = slot.folded;
    slot.folded = { latest: h, at: now, count: (f?.count ?? 0) + 1, since: f?.since ?? now };
    return null;
  }

  /** The happening is over before it was told (the dialog was answered): a pending fold is dropped. */
  over(event: NotifyEvent, agent: string): void {
    const slot = this.slots.get(foldKey({ event, agent }));
    if (slot) slot.folded = null;
  }

  /** The folded notifications whose cooldown has passed by `now`, each told once. */
  due(now: number): Notification[] {
    const out: Notification[] = [];
    for (const slot of this.slots.values()) {
      const f = slot.folded;
      if (!f || now - slot.toldAt < this.cooldownMs) continue;
      out.push({ happening: f.latest, at: f.at, count: f.count, since: f.since });
      slot.toldAt = now;
      slot.folded = null;
    }
    return out;
  }

  /** When `due` next has something (ms since the epoch), or null: nothing folded. */
  nextDue(): number | null {
    let next: number | null = null;
    for (const slot of this.slots.values())
      if (slot.folded) next = Math.min(next ?? Infinity, slot.toldAt + this.cooldownMs);
    return next;
  }
}
