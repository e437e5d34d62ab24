/**
 * Events on the PostgreSQL bus (SPEC §7, §10: kept in the database). A position is an event's sequence
 * number plus one; a generation is the conversation row's `gen` (a new one when `up --fresh` sets the
 * conversation aside), so a reader notices a replaced log just as on the files bus. Every append
 * NOTIFYs the conversation's channel; a reader also polls, so a lost notification only delays it.
 */
import { LogReplaced, NO_LOG, type EventLog, type EventName, type EventSource } from '../events.js';
import { client, type Db } from './db.js';
import { channelOf } from './hints.js';

export function pgEventLog(db: Db, conversation: string, onError: (err: unknown) => void): EventLog {
  const channel = channelOf(conversation);
  return {
    async emit(event: EventName, fields = {}) {
      const body = JSON.stringify({ ts: new Date().toISOString(), event, ...fields });
      // A record, not the source of truth: failing to append never stops a delivery.
      await db
        .query(
          `WITH e AS (INSERT INTO baton.events (conversation, body) VALUES ($1, $2) RETURNING seq) SELECT pg_notify($3, 'events') FROM e`,
          [conversation, body, channel],
        )
        .catch(onError);
    },
  };
}

export class PgEventSource implements EventSource {
  constructor(
    private readonly db: Db,
    private readonly url: string,
    private readonly conversation: string,
  ) {}

  private async gen(): Promise<string> {
    const r = await this.db
      .query<{ gen: string }>('SELECT gen FROM baton.conversations WHERE name = $1', [this.conversation])
      .catch(() => ({ rows: [] as { gen: string }[] }));
    return r.rows[0]?.gen ?? NO_LOG;
  }

  async head(): Promise<{ gen: string; end: number }> {
    const gen = await this.gen();
    if (gen === NO_LOG) return { gen, end: 0 };
    const r = await this.db.query<{ end: string }>(
      'SELECT coalesce(max(seq), 0) + 1 AS end FROM baton.events WHERE conversation = $1',
      [this.conversation],
    );
    return { gen, end: Number(r.rows[0]!.end) };
  }

  async read(
    gen: string,
    from: number,
    until: number,
    each: (e: Record<string, unknown>, end: number) => unknown,
  ): Promise<{ last: number; skipping: boolean }> {
    if ((await this.gen()) !== gen) {
      if (gen === NO_LOG) return { last: from, skipping: false };
      throw new LogReplaced();
    }
    let last = from;
    for (;;) {
      const r = await this.db.query<{ seq: string; body: Record<string, unknown> }>(
        'SELECT seq, body FROM baton.events WHERE conversation = $1 AND seq >= $2 AND seq < $3 ORDER BY seq LIMIT 1000',
        [this.conversation, last, until],
      );
      for (const row of r.rows) {
        last = Number(row.seq) + 1;
        if ((await each(row.body, last)) === false) return { last, skipping: false };
      }
      if (r.rows.length < 1000) return { last: r.rows.length ? last : Math.max(last, from), skipping: false };
    }
  }

  follow(changed: () => void): { close(): void } {
    let closed = false;
    const poll = setInterval(changed, 1000);
    const c = client(this.url);
    c.on('error', () => {}); // the poll carries on; a reader needs nothing more
    c.on('notification', () => changed());
    c.connect()
      .then(() => (closed ? undefined : c.query(`LISTEN ${channelOf(this.conversation)}`)))
      .catch(() => {});
    return {
      close() {
        closed = true;
        clearInterval(poll);
        void c.end().catch(() => {});
      },
    };
  }
}
