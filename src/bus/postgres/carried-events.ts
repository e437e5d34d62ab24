/**
 * A daemon's events, carried by the statements it sends anyway: each `delivered` event was its own statement
 * and a NOTIFY that woke every listener in the database. An event waits, in order, for the process's next turn
 * step, stamp or stored message (any conversation), or is stored alone after CARRY_MS or when too long
 * (MAX_CARRIED). The event log stays a record, not the truth (docs/protocol.md §7): a kill -9 may lose the last
 * CARRY_MS; close() stores them first. A failed statement gives its batch back, stored alone; a message is never
 * rejected for an event's data. docs/decisions/0005-postgres-round-trips.md.
 */
import { unstorable, type Db } from './db.js';
import type { Pg } from './rows.js';
import { run } from './sql/bind.js';
import { Json } from './sql/codec.js';

/** How long an event waits for a statement to carry it. */
export const CARRY_MS = 50;
/** An event whose JSON is longer does not ride along. */
const MAX_CARRIED = 16_384;

interface Pending {
  conversation: string;
  channel: string;
  body: Record<string, unknown>;
  onError: (err: unknown) => void;
  alone: boolean;
}

/** What a statement carries (`events`), and what it says once it is done: committed or not. */
type Carried = { events: Json; done(committed: boolean): void };

const NOTHING: Carried = { events: Json.of([]), done: () => {} };
const asJson = (batch: Pending[]) =>
  Json.of(batch.map(({ conversation, channel, body }) => ({ conversation, channel, body })));

class CarriedEvents {
  private pending: Pending[] = [];
  /** The batch in flight (carried or on its own): settled when it is. */
  private busy: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly db: Db,
    private readonly pg: Pg,
  ) {}

  add(e: Omit<Pending, 'alone'>): void {
    const alone = JSON.stringify(e.body).length > MAX_CARRIED;
    this.pending.push({ ...e, alone });
    this.schedule(alone ? 0 : CARRY_MS);
  }

  take(): Carried {
    if (this.busy || this.pending.length === 0 || this.pending.some((e) => e.alone)) return NOTHING;
    const batch = this.pending.splice(0);
    // Nothing is left waiting: the timer, set by the oldest event, would store the next ones on their own
    // CARRY_MS after it rather than after them (measured: one statement of its own every 50 ms per process).
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    let settle!: () => void;
    this.busy = new Promise((r) => (settle = r));
    return {
      events: asJson(batch),
      done: (committed) => {
        this.busy = null;
        settle();
        if (!committed) this.pending.unshift(...batch.map((e) => ({ ...e, alone: true }))); // never carried again
        if (this.pending.length) this.schedule(committed ? CARRY_MS : 0);
      },
    };
  }

  /** Every event emitted so far stored (or failed to be: told to its log's onError). */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    while (this.busy || this.pending.length) {
      if (this.busy) {
        await this.busy;
        continue;
      }
      const batch = this.pending.splice(0);
      const sent = run(this.db, this.pg.sql.events.carry, { events: asJson(batch) }).then(
        () => {},
        (err: unknown) => {
          for (const f of new Set(batch.map((e) => e.onError))) f(err); // a record: never stops a delivery
        },
      );
      this.busy = sent.then(() => {
        this.busy = null;
      });
      await this.busy;
    }
  }

  private schedule(ms: number): void {
    if (this.timer && ms > 0) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, ms);
  }
}

/** One queue per process, database and schema. */
const queues = new Map<string, CarriedEvents>();
const keyOf = (pg: Pg) => `${pg.url}\n${pg.sql.schema}`;

/** Queue an event of `pg`'s conversation, stored on `db` when no statement carries it. */
export function carryEvent(db: Db, pg: Pg, body: Record<string, unknown>, onError: (err: unknown) => void): void {
  let q = queues.get(keyOf(pg));
  if (!q) queues.set(keyOf(pg), (q = new CarriedEvents(db, pg)));
  q.add({ conversation: pg.conversation, channel: pg.channel, body, onError });
}

/**
 * Run `send` with the events waiting in `pg`'s database and schema for it to carry (an empty array when
 * there are none, or a batch is in flight); they are given back when it fails.
 */
export async function carrying<T>(pg: Pg, send: (events: Json) => Promise<T>): Promise<T> {
  const c = queues.get(keyOf(pg))?.take() ?? NOTHING;
  try {
    const out = await send(c.events);
    c.done(true);
    return out;
  } catch (err) {
    c.done(false);
    // Refused for its data while it carried events: perhaps theirs, not its own — so not the final word on
    // it (a message is rejected for an unstorable value): tried again, without them.
    if (c !== NOTHING && unstorable(err) !== null)
      throw new Error(`a statement that carried events failed (${String(err)}): tried again without them`);
    throw err;
  }
}

/** Every event this process emitted in `pg`'s database and schema, stored. */
export function flushEvents(pg: Pg): Promise<void> {
  return queues.get(keyOf(pg))?.flush() ?? Promise.resolve();
}
