/**
 * One notification per happening, never a storm (docs/protocol.md §12): the same event for the same agent
 * within `cooldown_s` of the last one told is not told again at once; it is folded into the next one, which
 * goes out when the cooldown has passed and says how many it stands for. Pure: the caller gives the time.
 *
 * Why a trailing one and not simply "drop repeats": an agent blocked, answered, and blocked again two minutes
 * later must still reach the person — dropped, the second dialog would wait all night with nobody told. Why
 * not one per event: a flapping pane or a config saved every few seconds with a typo would send dozens.
 */
import { foldKey, type Happening, type NotifyEvent } from './happening.js';

export interface Notification {
  happening: Happening;
  /** When it happened (ms since the epoch): the latest of those it stands for. */
  at: number;
  /** How many happenings it stands for: 1, or more when repeats within the cooldown were folded into it. */
  count: number;
  /** When the first of those it stands for happened. */
  since: number;
}

interface Slot {
  /** When the last notification for this key went out. */
  toldAt: number;
  /** The repeats since then, not told yet: the latest, how many, and when the first came. */
  folded: { latest: Happening; at: number; count: number; since: number } | null;
}

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
