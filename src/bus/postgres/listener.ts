/**
 * LISTEN on a conversation's channel, kept up: a dropped connection (the database restarted, a network
 * cut) is made again a second later. Notifications are hints only (pg-boss's pattern): whoever listens
 * also re-scans on a timer, so what was missed while the connection was down is found there. Every
 * (re)connect reports `reconnected`, so the listener looks at everything once.
 *
 * One connection per (process, URL) carries every channel its listeners want: a daemon serving many
 * conversations (`baton daemon A B C`) LISTENs on all of them over one session, not one session each.
 */
import type pg from 'pg';
import { client } from './db.js';
import { decodeText } from './sql/codec.js';

type Subscriber = { channel: string; onNotify: (payload: string) => void; reconnected: () => void };

const hubs = new Map<string, Hub>();

class Hub {
  private c: pg.Client | null = null;
  private readonly subs = new Set<Subscriber>();
  /** The channels the current connection LISTENs on. */
  private readonly listening = new Set<string>();
  /** Changes to the connection, one at a time. */
  private queue: Promise<void> = Promise.resolve();
  private retry: NodeJS.Timeout | null = null;

  constructor(private readonly url: string) {}

  add(s: Subscriber): Promise<void> {
    this.subs.add(s);
    return this.serial(() => this.sync([s]));
  }

  remove(s: Subscriber): Promise<void> {
    this.subs.delete(s);
    return this.serial(() => this.sync([]));
  }

  private serial(fn: () => Promise<void>): Promise<void> {
    this.queue = this.queue.then(fn).catch(() => {});
    return this.queue;
  }

  /**
   * Make the connection match the subscribers: connected and listening on their channels while there
   * are any, closed when none. `told` are told they may have missed something, once LISTEN holds —
   * every subscriber after a new connection.
   */
  private async sync(told: Subscriber[]): Promise<void> {
    if (this.subs.size === 0) {
      const c = this.c;
      this.c = null;
      this.listening.clear();
      if (hubs.get(this.url) === this) hubs.delete(this.url);
      await c?.end().catch(() => {});
      return;
    }
    let c = this.c;
    if (!c) {
      c = client(this.url);
      const made = c;
      this.c = made;
      made.on('error', () => this.broke(made));
      made.on('end', () => this.broke(made));
      made.on('notification', (n) => {
        // A payload is text a statement sent (its parameters encoded, sql/codec.ts): decoded like a column.
        const payload = decodeText(n.payload ?? '');
        for (const s of this.subs) if (s.channel === n.channel) s.onNotify(payload);
      });
      try {
        await made.connect();
      } catch {
        return this.broke(made);
      }
      told = [...this.subs];
    }
    const want = new Set([...this.subs].map((s) => s.channel));
    try {
      for (const ch of want)
        if (!this.listening.has(ch)) await c.query(`LISTEN ${ch}`).then(() => this.listening.add(ch));
      for (const ch of this.listening)
        if (!want.has(ch)) await c.query(`UNLISTEN ${ch}`).then(() => this.listening.delete(ch));
    } catch {
      return this.broke(c);
    }
    if (this.c !== c) return; // it broke meanwhile: the next connection tells everyone
    for (const s of told) if (this.subs.has(s)) s.reconnected();
  }

  private broke(c: pg.Client): void {
    if (this.c !== c) return;
    this.c = null;
    this.listening.clear();
    void c.end().catch(() => {});
    if (this.subs.size && !this.retry) {
      this.retry = setTimeout(() => {
        this.retry = null;
        void this.serial(() => this.sync([]));
      }, 1000);
      this.retry.unref();
    }
  }
}

export class Listener {
  private readonly sub: Subscriber;
  private hub: Hub | null = null;

  constructor(
    private readonly url: string,
    channel: string,
    onNotify: (payload: string) => void,
    reconnected: () => void,
  ) {
    this.sub = { channel, onNotify, reconnected };
  }

  /** Resolves once LISTEN holds, or once the first attempt failed (it goes on trying every second). */
  async start(): Promise<void> {
    if (this.hub) return;
    this.hub = hubs.get(this.url) ?? hubs.set(this.url, new Hub(this.url)).get(this.url)!;
    await this.hub.add(this.sub);
  }

  async close(): Promise<void> {
    const hub = this.hub;
    this.hub = null;
    await hub?.remove(this.sub);
  }
}
