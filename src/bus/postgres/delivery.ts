/**
 * The PostgreSQL bus, daemon side (SPEC §10). One daemon per (conversation, machine): it relays its own
 * agents' direction folders into the database (relay.ts), and delivers the messages whose receiver is on
 * its machine. A turn step is one transaction — lease generation checked, the conversation row locked
 * (FOR UPDATE serialises turns from every machine), the step decided on the state as stored, the waiting
 * row deleted, the record archived, the state saved, NOTIFY — so the state never lags the archive.
 *
 * Crash promise: killed before COMMIT, nothing happened (the message waits); after it, the record is
 * archived but not stamped, and this machine's next daemon types it again flagged `(redelivered)`, as
 * SPEC §6 asks, since the paste may have happened. Hints are LISTEN/NOTIFY; the daemon's re-scan timer
 * is behind them, so a notification lost while the connection was down delays, never loses.
 */
import type pg from 'pg';
import type { Config } from '../../config/config.js';
import type { Amendment, ArchiveRecord } from '../../core/record.js';
import { initialState } from '../../core/turns.js';
import type { State } from '../../core/state.js';
import { failpoint } from '../../lib/failpoint.js';
import type { Logger } from '../../lib/log.js';
import type { Approval, Commit, DeliveryBus, Hint, Holder, Lease, Queue, Recovered, Step, Waiting } from '../bus.js';
import type { EventLog } from '../events.js';
import { tx, type Db } from './db.js';
import { channelOf, hintOf } from './hints.js';
import { Listener } from './listener.js';
import { recoverConversation } from './recovery.js';
import { casStep, turnStep } from './turn-step.js';
import { pgEventLog } from './events.js';
import { fencedEvents, isFenced } from '../lease.js';
import { acquireLease, checkGeneration } from './lease.js';
import { relayInto, type Relay } from './relay.js';
import { deliveredHere, requestHost, type Pg } from './rows.js';
import { WaitingView } from './waiting-view.js';
import { amendRecord, countWaiting, ensureConversation, rejectWaiting, stampRecord, updateState } from './store.js';
import { approvals, examineApproval, moderate, refuse } from './approvals.js';
import {
  answer,
  archivePersonMessage,
  dropStaleReplies,
  findPersonMessage,
  insertRequest,
  requestsFor,
  takeRequest,
} from './requests.js';
import type { Request } from '../../core/requests.js';

export class PgDelivery implements DeliveryBus {
  readonly events: EventLog;
  private readonly relay: Relay;
  private readonly here;
  private st!: State;
  private held: Lease | null = null;
  private listener: Listener | null = null;
  private readonly view: WaitingView;
  private rescans = 0;

  constructor(
    private readonly config: Config,
    private readonly db: Db,
    private readonly pg: Pg,
    private readonly log: Logger,
    eventsDb: Db = db,
  ) {
    const events = pgEventLog(eventsDb, pg.conversation, (err) => log.warn(`cannot store an event: ${String(err)}`));
    this.events = fencedEvents(events, () => this.held);
    this.here = deliveredHere(config);
    this.view = new WaitingView(db, pg, this.here, config.inbox.max_bytes);
    this.relay = relayInto(config, db, pg, this.events, log, () => this.held, eventsDb);
  }

  private guard(): void {
    this.held?.check();
  }

  /** A write transaction proving the lease first; one that may change the state or the waiting rows (`'view'`) has them read again. */
  private write<T>(fn: (c: pg.PoolClient) => Promise<T>, touches: 'view' | 'other' = 'view'): Promise<T> {
    this.guard();
    const done = tx(this.db, async (c) => {
      if (this.held) await checkGeneration(c, this.pg, this.held.generation);
      return fn(c);
    });
    return touches === 'view' ? done.finally(() => this.view.invalidate()) : done;
  }

  async lease(holder: Holder, onLost: (why: string) => void): Promise<Lease> {
    await ensureConversation(this.db, this.pg.conversation, initialState(this.config.firstTurn));
    this.held = await acquireLease(this.pg.url, this.pg, holder, onLost);
    return this.held;
  }

  async recover(): Promise<Recovered> {
    this.guard();
    await ensureConversation(this.db, this.pg.conversation, initialState(this.config.firstTurn));
    await this.relay.ensureFolders();
    await this.relay.resume();
    const r = await recoverConversation(this.db, this.pg, this.config);
    this.st = r.state;
    return r;
  }

  state(): State {
    return this.st;
  }

  async watch(hint: (h: Hint) => void): Promise<void> {
    await this.relay.watch(hint);
    this.listener = new Listener(
      this.pg.url,
      channelOf(this.pg.conversation),
      (p) => {
        const h = hintOf(p, this.pg.host);
        if (h?.kind === 'messages') this.view.told(h);
        if (h) hint({ kind: h.kind });
      },
      () => {
        this.view.invalidate();
        hint({ kind: 'messages' });
        hint({ kind: 'requests' });
      },
    );
    await this.listener.start();
  }

  async unwatch(): Promise<void> {
    await this.relay.unwatch();
    await this.listener?.close();
    this.listener = null;
  }

  /**
   * The agents' folders are looked at every time; the database every fifth time (~10 s): its changes come
   * as notifications, which PostgreSQL does not drop while the LISTEN session holds (a new session makes
   * the daemon look at everything), so reading it again is a net under a bug, not under the network — and
   * every 2 s it was 1.5 statements a second per conversation and machine, a sixth of all at scale.
   */
  async rescan(): Promise<void> {
    this.guard();
    await this.relay.rescan();
    if (this.rescans++ % 5 !== 0) return;
    this.view.invalidate();
    await dropStaleReplies(this.db, this.pg);
  }

  async queues(): Promise<Queue[]> {
    // What it stores for this machine's own agents comes back as a notification like any other machine's.
    if (!isFenced(this.held)) await this.relay.run();
    const { state, queues, invalid } = await this.view.look();
    if (state) this.st = state; // as stored: another machine may have moved the turn
    if (!isFenced(this.held)) for (const [w, reason] of invalid) await this.reject(w, reason);
    return queues;
  }

  async reject(w: Waiting, reason: string): Promise<void> {
    if (!(await this.write((c) => rejectWaiting(c, this.pg.conversation, w, reason)))) return;
    this.log.warn(`rejected ${w.direction.name}/${w.name}: ${reason}`);
    await this.events.emit('rejected', {
      file: w.name,
      direction: w.direction.name,
      reason,
      stored_as: `${this.pg.conversation}#${w.name}`,
    });
  }

  async commit(w: Waiting | Approval, step: Step, extra: Record<string, unknown> = {}): Promise<Commit> {
    this.guard();
    const waiting = 'firstSeen' in w ? w : null;
    const input = {
      w,
      step,
      extra,
      firstSeen: waiting?.firstSeen ?? performance.now(),
      generation: this.held?.generation ?? null,
    };
    // A waiting message this daemon has read goes in one statement; an approval, or one not read, in a transaction.
    const seen = waiting && this.view.expected(waiting);
    const max = this.config.inbox.max_bytes;
    const out = await this.view.step(
      w,
      waiting && seen
        ? casStep(this.db, this.pg, max, { ...input, w: waiting }, seen)
        : turnStep(this.db, this.pg, max, input),
    );
    if (out.kind === 'invalid') {
      // Rolled back: it is still waiting, and is refused with its reason like any invalid message.
      if (waiting) await this.reject(waiting, out.reason);
      return { kind: 'changed' };
    }
    if (out.kind === 'committed') {
      failpoint('state_saved');
      this.st = out.state;
    }
    return out;
  }

  /** Nothing to do: the state is saved in the turn step's own transaction. */
  async saveState(): Promise<void> {}

  async update(change: (state: State) => State): Promise<State> {
    this.st = await this.write((c) => updateState(c, this.pg, change));
    return this.st;
  }

  async stamp(record: ArchiveRecord): Promise<void> {
    this.guard();
    await stampRecord(this.db, this.pg, record, this.held?.generation ?? null);
    failpoint('stamped');
  }

  async record(id: string): Promise<ArchiveRecord | null> {
    const r = await this.db.query<{ record: ArchiveRecord }>(
      'SELECT record FROM baton.archive WHERE conversation = $1 AND id = $2',
      [this.pg.conversation, id],
    );
    return r.rows[0]?.record ?? null;
  }

  amend(id: string, fields: Amendment): Promise<boolean> {
    return this.write((c) => amendRecord(c, this.pg.conversation, id, fields), 'other');
  }

  async waitingFrom(agent: string): Promise<number> {
    if (!isFenced(this.held)) await this.relay.run(); // its files become rows first: a file is a post too
    return countWaiting(
      this.db,
      this.pg.conversation,
      this.config.directions.filter((d) => d.from === agent).map((d) => d.name),
    );
  }

  moderate(w: Waiting): Promise<'queued' | 'held' | 'gone'> {
    return this.write((c) => moderate(c, this.pg, this.config, w));
  }

  approvals(): Promise<Approval[]> {
    return approvals(this.db, this.pg, this.here);
  }

  refuse(a: Approval, reason: string): Promise<boolean> {
    return this.write((c) => refuse(c, this.pg, a, reason));
  }

  examineApproval(a: Approval) {
    return examineApproval(this.db, this.pg, a, this.config.inbox.max_bytes);
  }

  findPersonMessage(request: string): Promise<ArchiveRecord | null> {
    return findPersonMessage(this.db, this.pg, request);
  }

  archivePersonMessage(make: (id: string) => ArchiveRecord): Promise<ArchiveRecord> {
    return this.write((c) => archivePersonMessage(c, this.pg, make));
  }

  requests(): Promise<string[]> {
    return requestsFor(this.db, this.pg);
  }

  async takeRequest(name: string) {
    return this.write((c) => takeRequest(c, this.pg, name), 'other');
  }

  async answer(taken: string, reply: Parameters<DeliveryBus['answer']>[1]): Promise<void> {
    await this.write((c) => answer(c, this.pg, taken, reply), 'other');
  }

  async forward(request: Request): Promise<void> {
    this.guard();
    await insertRequest(this.db, this.pg, requestHost(this.config, request, this.st?.current_turn), request);
  }

  async close(): Promise<void> {
    await this.unwatch();
  }
}
