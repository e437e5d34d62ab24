/**
 * Events on the PostgreSQL bus (docs/protocol.md §7, §10: kept in the database). A position is an event's sequence
 * number plus one; a generation is the conversation row's `gen` (a new one when `up --fresh` sets the
 * conversation aside), so a reader notices a replaced log just as on the files bus. Every append
 * NOTIFYs the conversation's channel; a reader also polls, so a lost notification only delays it.
 */
import { LogReplaced, NO_LOG, type EventLog, type EventName, type EventSource } from '../events.js';
import { isoAt, type Clock } from '../clock.js';
import { carryEvent, flushEvents } from './carried-events.js';
import { client, type Db } from './db.js';
import type { Pg } from './rows.js';
import { run } from './sql/bind.js';
import { Json } from './sql/codec.js';

/**
 * `clock`: the conversation's (the database's time), which an event's `ts` is written with. `carried`: a
 * daemon's, whose events ride on its next statements (carried-events.ts) — emit() returns once the event is
 * queued; otherwise (a command, which may exit at once) once it is stored.
 */
export function pgEventLog(
  db: Db,
  pg: Pg,
  clock: Clock,
  { onError, carried = false }: { onError: (err: unknown) => void; carried?: boolean },
): EventLog {
  const { conversation, channel } = pg;
  return {
    async emit(event: EventName, fields = {}) {
      const fieldsOf = { ts: isoAt(clock.now()), event, ...fields };
      if (carried) return carryEvent(db, pg, fieldsOf, onError);
      // A record, not the source of truth: failing to append never stops a delivery.
      await run(db, pg.sql.events.append, { conversation, body: Json.of(fieldsOf), channel }).catch(onError);
    },
  };
}

export class PgEventSource implements EventSource {
  constructor(
    private readonly db: Db,
    private readonly pg: Pg,
  ) {}

  private async gen(): Promise<string> {
    const r = await run(this.db, this.pg.sql.conversations.gen, { conversation: this.pg.conversation }).catch(
      () => null,
    );
    return r?.rows[0]?.gen ?? NO_LOG;
  }

  async head(): Promise<{ gen: string; end: number }> {
    await flushEvents(this.pg); // what this process emitted is there to read
    const gen = await this.gen();
    if (gen === NO_LOG) return { gen, end: 0 };
    const r = await run(this.db, this.pg.sql.events.end, { conversation: this.pg.conversation });
    return { gen, end: Number(r.rows[0]!.end) };
  }

  async read(
    gen: string,
    from: number,
    until: number,
    each: (e: Record<string, unknown>, end: number) => unknown,
  ): Promise<{ last: number; skipping: boolean }> {
    await flushEvents(this.pg);
    if ((await this.gen()) !== gen) {
      if (gen === NO_LOG) return { last: from, skipping: false };
      throw new LogReplaced();
    }
    let last = from;
    for (;;) {
      const r = await run(this.db, this.pg.sql.events.page, { conversation: this.pg.conversation, from: last, until });
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
    const c = client(this.pg.url);
    c.on('error', () => {}); // the poll carries on; a reader needs nothing more
    c.on('notification', () => changed());
    c.connect()
      .then(() => (closed ? undefined : c.query(`LISTEN ${this.pg.channel}`)))
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
