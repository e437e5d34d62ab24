/**
 * The PostgreSQL bus, daemon side (docs/protocol.md §10): one daemon per (conversation, machine) relays its own
 * agents' direction folders into the database (relay.ts) and delivers the messages whose receiver is on its
 * machine, each in one turn-step statement (turn-step.ts), so the state never lags the archive. Killed before
 * the commit, the message waits; after it, the next daemon types it again flagged `(redelivered)` (§6), since
 * the paste may have happened. Hints are LISTEN/NOTIFY with a re-scan timer behind: a lost one delays, never loses.
 */
import type pg from 'pg';
import type { Config } from '../../config/config.js';
import type { Amendment, ArchiveRecord } from '../../core/record.js';
import { initialState } from '../../core/turns.js';
import type { State } from '../../core/state.js';
import { failpoint } from '../../lib/failpoint.js';
import type { Logger } from '../../lib/log.js';
import type { Approval, Commit, DeliveryBus, Hint, Holder, Lease, Queue, Recovered, Step, Waiting } from '../bus.js';
import type { Rejected } from '../queues.js';
import { FolderAnchor } from '../anchor.js';
import { observed, type EventLog, type EventObserver } from '../events.js';
import { tx, type Db } from './db.js';
import type { Listener } from './listener.js';
import { recoverConversation } from './recovery.js';
import { turnStep } from './turn-step.js';
import { pgEventLog } from './events.js';
import { flushEvents } from './carried-events.js';
import { fencedEvents, isFenced } from '../lease.js';
import { acquireLease, checkGeneration } from './lease.js';
import { DbClock } from './db-clock.js';
import { agreeOnConfig } from './agreement.js';
import type { Relay } from './relay.js';
import { relayInto } from './relay-into.js';
import { deliveredHere, fileOf, requestHost, type Pg } from './rows.js';
import { WaitingView } from './waiting-view.js';
import {
  amendRecord,
  checkSchema,
  countWaiting,
  ensureConversation,
  readRecord,
  rejectWaiting,
  stampRecord,
  updateState,
} from './store.js';
import { approvals, examineApproval, moderate } from './approvals.js';
import {
  answer,
  archivePersonMessage,
  dropStaleReplies,
  findPersonMessage,
  insertRequest,
  RequestLooks,
  takeRequest,
} from './requests.js';
import type { Request } from '../../core/requests.js';

/** What a daemon's side of the bus works with. */
export interface DeliveryOptions {
  config: Config;
  /** Durable sessions: turn steps, stamps, every write that must reach the disk. */
  db: Db;
  /** Sessions that commit without waiting for the disk: the event log, the relay's first insert (db.ts). */
  eventsDb?: Db;
  pg: Pg;
  log: Logger;
  /** This machine's project and message folder as the first lease found them (bus/anchor.ts). */
  anchor?: FolderAnchor;
  /** Told of every event appended while the lease is held (the notifier). */
  observe?: EventObserver | undefined;
}

/**
 * A daemon's side. Its writes each prove the lease first (its generation checked inside the transaction), and
 * one that may change the state or the waiting rows has what the daemon sees read again.
 */
export class PgDelivery implements DeliveryBus {
  readonly events: EventLog;
  private held: Lease | null = null;
  private readonly config: Config;
  private readonly db: Db;
  private readonly pg: Pg;
  private readonly log: Logger;
  private readonly view: WaitingView;
  private readonly relay: Relay;
  private st!: State;
  private listener: Listener | null = null;
  private rescans = 0;
  private readonly asked = new RequestLooks();
  private readonly clock = new DbClock(); // the conversation's clock: the database's time (db-clock.ts)
  readonly now = (): number => this.clock.now();
  readonly takeRejected = (): Rejected[] => this.relay.intake.rejected.take(); // its own reject()s added there
  private readonly anchor: FolderAnchor;

  constructor({ config, db, eventsDb = db, pg, log, anchor = new FolderAnchor(config), observe }: DeliveryOptions) {
    this.view = new WaitingView(db, pg, deliveredHere(config), config.inbox.max_bytes);
    this.config = config;
    this.db = db;
    this.pg = pg;
    this.log = log;
    const onError = (err: unknown) => log.warn(`cannot store an event: ${String(err)}`);
    const log_ = pgEventLog(eventsDb, pg, this.clock, { onError, carried: true });
    this.events = fencedEvents(observed(log_, observe), () => this.held);
    this.anchor = anchor;
    const { events } = this;
    this.relay = relayInto({ config, db, fastDb: eventsDb, pg, events, log, held: () => this.held, anchor });
  }

  async lease(holder: Holder, onLost: (why: string) => void): Promise<Lease> {
    // This machine's folders (its agents' direction folders under message_dir): the first lease may make the
    // message folder; a later one finds it, or stops (FolderGone) rather than make a moved project again.
    await this.anchor.atLease();
    await ensureConversation(this.db, this.pg, initialState(this.config.firstTurn));
    const lease = await acquireLease(this.pg, holder, onLost, this.clock);
    // Under the lease: joining with a config other machines' daemons do not share is refused (ConfigError).
    const agreed = agreeOnConfig({ db: this.db, pg: this.pg, config: this.config, log: this.log });
    await agreed.catch((err: unknown) => lease.release().then(() => Promise.reject(err)));
    this.held = lease;
    return lease;
  }

  async recover(): Promise<Recovered> {
    this.held?.check();
    await ensureConversation(this.db, this.pg, initialState(this.config.firstTurn));
    await this.view.recovered();
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
    this.listener = this.view.listen(this.asked.hearing(hint));
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
    this.held?.check();
    this.anchor.check(); // its folders moved away or removed: FolderGone, the daemon stops for this conversation
    await this.relay.rescan();
    if (this.rescans++ % 5 !== 0) return;
    await checkSchema(this.db, this.pg);
    this.view.invalidate();
    if (this.rescans % 30 === 1) await dropStaleReplies(this.db, this.pg); // a minute: a stale answer only takes room
  }

  async queues(): Promise<Queue[]> {
    // What it stores for this machine's own agents comes back as a notification like any other machine's.
    if (!isFenced(this.held)) await this.relay.run();
    const { state, queues, invalid } = await this.view.look();
    this.st = state; // as stored: another machine may have moved the turn
    if (!isFenced(this.held)) for (const [w, reason] of invalid) await this.reject(w, reason);
    return queues;
  }

  /** Moved to `rejected`, then logged, told as an event, and listed for its sender. */
  async reject(w: Waiting | Approval, reason: string): Promise<void> {
    if (!(await this.write((c) => rejectWaiting(c, this.pg, w, reason)))) return;
    this.log.warn(`rejected ${w.direction.name}/${w.name}: ${reason}`);
    const stored_as = `${this.pg.conversation}#${w.name}`;
    await this.events.emit('rejected', { file: w.name, direction: w.direction.name, reason, stored_as });
    this.relay.intake.rejected.add({ direction: w.direction, file: fileOf(w.name), reason }); // its sender told
  }

  /** A write transaction proving the lease first; one that may change the state or the waiting rows (`'view'`) has them read again. */
  private write<T>(fn: (c: pg.PoolClient) => Promise<T>, touches: 'view' | 'other' = 'view'): Promise<T> {
    this.held?.check(); // throws while the lease is lost or unproven (as before every write and stamp here)
    const done = tx(this.db, async (c) => {
      if (this.held) await checkGeneration(c, this.pg, this.held.generation, this.view.generation);
      return fn(c);
    });
    return touches === 'view' ? done.finally(() => this.view.invalidate()) : done;
  }

  async commit(w: Waiting | Approval, step: Step, extra: Record<string, unknown> = {}): Promise<Commit> {
    this.held?.check();
    const waiting = 'firstSeen' in w ? w : null;
    const input = {
      w,
      step,
      extra,
      firstSeen: waiting?.firstSeen ?? performance.now(),
      generation: this.held?.generation ?? null,
    };
    const on = { db: this.db, pg: this.pg, maxBytes: this.config.inbox.max_bytes, now: this.now };
    const out = await this.view.step(w, turnStep(on, input, this.view.expected(w)));
    if (out.kind === 'invalid') {
      // Rolled back: still waiting (or waiting for approval), and refused with its reason like any invalid
      // message — never tried again (one the server cannot store held the conversation for ever).
      await this.reject(w, out.reason);
      return { kind: waiting ? 'changed' : 'gone' };
    }
    if (out.kind === 'committed') {
      failpoint('state_saved');
      this.st = out.state;
    }
    return out;
  }

  /** Nothing to do: the turn step archived the record in its own transaction. */
  async settle(): Promise<void> {}

  async update(change: (state: State) => State): Promise<State> {
    this.st = await this.write((c) => updateState(c, this.pg, change));
    return this.st;
  }

  async stamp(record: ArchiveRecord): Promise<void> {
    this.held?.check();
    const fence = { generation: this.held?.generation ?? null, gen: this.view.generation };
    await stampRecord(this.db, this.pg, record, fence);
    failpoint('stamped');
  }

  record(id: string): Promise<ArchiveRecord | null> {
    return readRecord(this.db, this.pg, id);
  }

  amend(id: string, fields: Amendment): Promise<boolean> {
    return this.write((c) => amendRecord(c, this.pg, id, fields), 'other');
  }

  async waitingFrom(agent: string): Promise<number> {
    if (!isFenced(this.held)) await this.relay.run(); // its files become rows first: a file is a post too
    const from = this.config.directions.filter((d) => d.from === agent).map((d) => d.name);
    // A file whose store failed waits in .relaying/: a post all the same (an automatic reply never doubles it).
    return (await countWaiting(this.db, this.pg, from)) + this.relay.strandedIn(from);
  }

  moderate(w: Waiting): Promise<'queued' | 'held' | 'gone'> {
    return this.write((c) => moderate(c, this.pg, this.config, w));
  }

  approvals(): Promise<Approval[]> {
    return approvals(this.db, this.pg, deliveredHere(this.config));
  }

  refuse(a: Approval, reason: string): Promise<boolean> {
    return this.write((c) => rejectWaiting(c, this.pg, a, reason));
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
    return this.asked.list(this.db, this.pg, this.listener !== null);
  }

  async takeRequest(name: string) {
    return this.write((c) => takeRequest(c, this.pg, name), 'other');
  }

  async answer(taken: string, reply: Parameters<DeliveryBus['answer']>[1]): Promise<void> {
    await this.write((c) => answer(c, this.pg, taken, reply), 'other');
  }

  async forward(request: Request): Promise<void> {
    this.held?.check();
    await insertRequest(this.db, this.pg, requestHost(this.config, request, this.st?.current_turn), request);
  }

  async close(): Promise<void> {
    await this.unwatch();
    await flushEvents(this.pg); // its last events (carried-events.ts) stored before it goes
  }
}
