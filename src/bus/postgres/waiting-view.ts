/**
 * What a daemon sees of its machine's queues: the conversation's state and the waiting rows it delivers, read in
 * one statement and kept until something may have changed them — a notification (a row that fits in it is added
 * without a read), a re-scan, or this daemon's own turn step (which updates the view in place). Reading on every
 * pass cost a turn five reads: a third of all statements at scale.
 */
import type { Direction } from '../../config/config.js';
import type { State } from '../../core/state.js';
import type { Approval, Hint as BusHint, Queue, Waiting } from '../bus.js';
import type { Db } from './db.js';
import { stateOf, WaitingRows, type Pg, type WaitingRow } from './rows.js';
import { hintOf, type Hint } from './hints.js';
import { Listener } from './listener.js';
import type { Expected, StepOutcome } from './turn-step.js';
import { run } from './sql/bind.js';
import { gone } from './store.js';
import { startedAnew } from './lease.js';

export class WaitingView {
  private rows: WaitingRow[] | null = null;
  /** The state as stored at `version`, read with the rows (or saved by this daemon's turn step since). */
  private seen: { state: State; version: string } | null = null;
  /** The conversation's generation as last read (null: it had no row). */
  private gen: string | null = null;
  /**
   * The conversation's generation when this daemon recovered it (recovered(); null before): another one means
   * it was made anew. Its writes by ID check it.
   */
  generation: string | null = null;
  private readonly examined: WaitingRows;
  /**
   * Bumped by every change told while the rows were being read: the read's snapshot may predate it, so
   * what it returns is used once and read again at the next look.
   */
  private changes = 0;

  constructor(
    private readonly db: Db,
    private readonly pg: Pg,
    /** The directions this machine delivers. */
    private readonly here: Direction[],
    maxBytes: number,
  ) {
    this.examined = new WaitingRows(here, maxBytes);
  }

  /**
   * A turn step of this daemon's. Committed: that row left and the state is the one saved — nothing else
   * need be read. Anything else (refused, gone, changed, failed) means what was read is out of date.
   */
  async step<T extends StepOutcome>(w: Waiting | Approval, outcome: Promise<T>): Promise<T> {
    try {
      const out = await outcome;
      if (out.kind === 'committed' && out.version && this.rows) {
        this.rows = this.rows.filter((r) => r.seq !== w.key);
        this.seen = { state: out.state, version: out.version };
      } else this.invalidate();
      return out;
    } catch (err) {
      this.invalidate();
      throw err;
    }
  }

  /** Read again at the next look. */
  invalidate(): void {
    this.rows = null;
    this.seen = null;
    this.changes++;
  }

  /**
   * A notification that something changed (hints.ts). A stored message's row it carries is added (a read
   * since may hold it already); a state another machine's turn step saved is taken — that step's row was
   * in a direction delivered there, so these rows stand — unless it is older than the one seen; a state
   * that does not check out, or no carried data, means a read.
   */
  told(h: Extract<Hint, { kind: 'messages' }>): void {
    this.changes++;
    if (h.row && this.rows) {
      const row = h.row;
      if (this.rows.some((r) => r.seq === row.seq) || !this.here.some((d) => d.name === row.direction)) return;
      this.rows = [...this.rows, row].sort((a, b) => Number(a.seq) - Number(b.seq));
    } else if (h.moved && this.rows && this.seen) {
      if (BigInt(h.moved.version) <= BigInt(this.seen.version)) return;
      try {
        this.seen = { state: stateOf(h.moved.state, this.pg), version: h.moved.version };
      } catch {
        this.invalidate();
      }
    } else if (!h.row && !h.moved) this.invalidate();
  }

  /** What a turn step of `w` is decided on (turn-step.ts), or null: nothing read for it. */
  expected(w: Waiting | Approval): Expected | null {
    const row = 'firstSeen' in w ? this.rows?.find((r) => r.seq === w.key) : undefined;
    return row && this.seen ? { ...this.seen, row: { body: row.body, file: row.file } } : null;
  }

  /** The conversation's notifications: news for what it sees, and hints for the daemon. */
  listen(hint: (h: BusHint) => void): Listener {
    return new Listener(
      this.pg.url,
      this.pg.channel,
      (payload) => {
        const h = hintOf(payload, this.pg.host);
        if (h?.kind === 'messages') this.told(h);
        // The direction, when the row is one delivered here: its receiver's pane is looked at at once.
        const direction = h?.kind === 'messages' ? h.row?.direction : undefined;
        if (h)
          hint(
            direction && this.here.some((d) => d.name === direction)
              ? { kind: 'messages', direction }
              : { kind: h.kind },
          );
      },
      () => {
        this.invalidate();
        hint({ kind: 'messages' });
        hint({ kind: 'requests' });
      },
    );
  }

  /** The conversation as the daemon recovered it: the one it must go on seeing. */
  async recovered(): Promise<void> {
    const r = await run(this.db, this.pg.sql.conversations.gen, { conversation: this.pg.conversation });
    this.generation = r.rows[0]?.gen ?? null;
  }

  /**
   * The queues, examined, and the state as last known stored. Throws StoreChanged when the conversation
   * has no row any more (deleted by hand: a daemon used to wait in silence), NewGeneration when it was made
   * anew since the daemon recovered it (`baton up --fresh` on another machine): the daemon follows the new
   * one, and nothing read of the old one is used.
   */
  async look(): Promise<{ state: State; queues: Queue[]; invalid: Array<[Waiting, string]> }> {
    if (!this.rows) {
      const changes = this.changes;
      // The state and this machine's waiting rows in one statement (the state repeated on each row).
      const r = await run(this.db, this.pg.sql.waiting.view, {
        conversation: this.pg.conversation,
        directions: this.here.map((d) => d.name),
      });
      const seen = r.rows[0] ? { state: stateOf(r.rows[0].state, this.pg), version: r.rows[0].version } : null;
      const gen = r.rows[0]?.gen ?? null;
      const rows = r.rows.filter((x): x is typeof x & WaitingRow => x.seq !== null);
      // Something changed while it was read: not kept, read again next time.
      if (changes !== this.changes) return { state: this.same(seen, gen), ...this.examined.examine(rows) };
      this.seen = seen;
      this.gen = gen;
      this.rows = rows;
    }
    return { state: this.same(this.seen, this.gen), ...this.examined.examine(this.rows) };
  }

  /** The state read, when it is still the conversation recovered. */
  private same(seen: { state: State } | null, gen: string | null): State {
    if (!seen) throw gone(this.pg);
    if (this.generation !== null && gen !== this.generation) {
      this.invalidate(); // what was read is the new one's: never decided on by this daemon
      throw startedAnew(this.pg);
    }
    return seen.state;
  }
}
