/**
 * LISTEN on a conversation's channel, kept up: a dropped connection (the database restarted, a network
 * cut) is made again a second later. Notifications are hints only (pg-boss's pattern): whoever listens
 * also re-scans on a timer, so what was missed while the connection was down is found there. Every
 * (re)connect reports `reconnected`, so the listener looks at everything once.
 */
import type pg from 'pg';
import { client } from './db.js';

export class Listener {
  private c: pg.Client | null = null;
  private closed = false;

  constructor(
    private readonly url: string,
    private readonly channel: string,
    private readonly onNotify: (payload: string) => void,
    private readonly reconnected: () => void,
  ) {}

  async start(): Promise<void> {
    if (this.closed) return;
    const c = client(this.url);
    this.c = c;
    const again = () => {
      if (this.c !== c) return;
      this.c = null;
      void c.end().catch(() => {});
      if (!this.closed) setTimeout(() => void this.start(), 1000).unref();
    };
    c.on('error', again);
    c.on('end', again);
    c.on('notification', (n) => this.onNotify(n.payload ?? ''));
    try {
      await c.connect();
      await c.query(`LISTEN ${this.channel}`);
      this.reconnected();
    } catch {
      again();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const c = this.c;
    this.c = null;
    await c?.end().catch(() => {});
  }
}
