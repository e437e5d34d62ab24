/**
 * The dashboard's view of the archive: a light index of every delivered record (no content), in the
 * order the records reached the panes, read once at start and then extended from events.jsonl. A page
 * of bubbles reads its records' content from disk, so a 10,000-message archive costs a few MB here,
 * and no client ever makes the server re-read the whole archive.
 */
import type { Archive } from '../bus/bus.js';
import { byDelivery, type ArchiveRecord } from '../core/record.js';
import type { Bubble, Page } from './api.js';

const CONTENT_CAP = 64 * 1024;
const READ_CONCURRENCY = 32;

export class Transcript {
  /** Message IDs in delivery order, and each one's position there. */
  private ids: string[] = [];
  private readonly index = new Map<string, number>();
  /** Reminder counts by the ID the reminded agent owed a reply to (from `nudged` events). */
  nudges = new Map<string, number>();

  constructor(private readonly bus: Archive) {}

  /** Every typed record's ID, in delivery order; records not typed yet join when their `delivered` event comes. */
  async read(): Promise<string[]> {
    const names = await this.bus.recordIds().catch(() => [] as string[]);
    const found: Array<Pick<ArchiveRecord, 'id' | 'delivered_at' | 'received_at'>> = [];
    for (let i = 0; i < names.length; i += READ_CONCURRENCY) {
      const batch = await Promise.all(
        names.slice(i, i + READ_CONCURRENCY).map((id) => this.bus.record(id).catch(() => null)),
      );
      for (const r of batch)
        if (r?.delivered_at) found.push({ id: r.id, delivered_at: r.delivered_at, received_at: r.received_at });
    }
    return found.sort(byDelivery).map((r) => r.id);
  }

  /** Take a whole new index at once (another conversation, or the first read). */
  replace(ids: string[], nudges: Map<string, number>): void {
    this.ids = ids;
    this.index.clear();
    for (const [i, id] of ids.entries()) this.index.set(id, i);
    this.nudges = nudges;
  }

  /** Where a message stands in delivery order (for "Load older"), or -1. */
  position(id: string): number {
    return this.index.get(id) ?? -1;
  }

  /** A record was typed (or typed again): add it at the end, in the order events.jsonl tells. */
  add(id: string): void {
    if (this.index.has(id)) return;
    this.index.set(id, this.ids.length);
    this.ids.push(id);
  }

  /** Up to `limit` bubbles ending before position `before` (default: the newest). */
  async page(before: number | undefined, limit: number): Promise<Page> {
    const end = Math.max(0, Math.min(before ?? this.ids.length, this.ids.length));
    const start = Math.max(0, end - limit);
    const items = await Promise.all(this.ids.slice(start, end).map((id) => this.bubble(id)));
    return { start, total: this.ids.length, items: items.filter((b): b is Bubble => b !== null) };
  }

  /** One message as a bubble (content cut at `cap` characters), or null when it is not in the archive. */
  async bubble(id: string, cap = CONTENT_CAP): Promise<Bubble | null> {
    const r = await this.bus.record(id).catch(() => null);
    return r ? toBubble(r, this.nudges.get(r.id) ?? 0, cap) : null;
  }
}

/** Agents wrote these fields: they are passed on as strings, never trusted to be of the right type. */
function toBubble(r: ArchiveRecord, nudges: number, cap = CONTENT_CAP): Bubble {
  const content = typeof r.content === 'string' ? r.content : JSON.stringify(r.content ?? '');
  const str = (v: unknown) => (typeof v === 'string' ? v : null);
  return {
    id: String(r.id),
    sender: String(r.sender),
    receiver: String(r.receiver),
    delivered_at: str(r.delivered_at),
    reply_to: str(r.reply_to),
    type: str(r.type) ?? 'message',
    subject: str(r.subject),
    content: content.length > cap ? content.slice(0, cap) : content,
    truncated: content.length > cap,
    length: content.length,
    redelivered: r.redelivered === true,
    confirmed: str(r.confirmed),
    nudges,
  };
}
