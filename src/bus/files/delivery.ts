/**
 * The files bus, daemon side: direction folders as queues (folders/intake.ts), a turn step as a claim, a record
 * and a state.json write (turn-step.ts), requests as files, the lease as a lock file. One machine, one writer:
 * the lease holder's copy of the state is the truth, and every step runs in its one loop.
 */
import { join } from 'node:path';
import type { Config } from '../../config/config.js';
import { turnTaken } from '../../core/conversation.js';
import { formatId } from '../../core/ids.js';
import type { Amendment, ArchiveRecord } from '../../core/record.js';
import type { State } from '../../core/state.js';
import { failpoint } from '../../lib/failpoint.js';
import type { Logger } from '../../lib/log.js';
import type { Approval, Commit, DeliveryBus, Hint, Holder, Lease, Queue, Recovered, Step, Waiting } from '../bus.js';
import type { Rejected } from '../queues.js';
import { observed, type EventLog, type EventObserver } from '../events.js';
import { fencedEvents } from '../lease.js';
import { Approvals } from './approvals.js';
import { ArchiveWriter, archivedCounters, archiveNew, readRecord } from './archive.js';
import { turnStep } from './turn-step.js';
import { eventLog } from './event-log.js';
import { sweepTemps } from '../../lib/fsx.js';
import { refused } from '../folders/aside.js';
import { FolderAnchor } from '../anchor.js';
import type { Entry } from '../folders/inbox.js';
import { Intake } from '../folders/intake.js';
import type { Layout } from './layout.js';
import { acquireLock } from './lock.js';
import { recover } from './recovery.js';
import { quarantine } from '../folders/rejected.js';
import {
  answer,
  answerable,
  dropStaleReplies,
  pendingIn,
  RequestsListing,
  submitRequest,
  takeOne,
} from './requests.js';
import type { Request } from '../../core/requests.js';
import { writeStateFile } from './state-file.js';

export class FilesDelivery implements DeliveryBus {
  readonly events: EventLog;
  private readonly intake: Intake;
  private readonly approvalQueue: Approvals;
  private st!: State;
  /** Held from lease() on: every durable write checks it first (fencing: lock.ts says why). */
  private held: Lease | null = null;
  private readonly requestsListing: RequestsListing;
  private records: ArchiveWriter;
  private readonly anchor: FolderAnchor;

  constructor(
    private readonly config: Config,
    private readonly l: Layout,
    private readonly log: Logger,
    opts: { anchor?: FolderAnchor | undefined; observe?: EventObserver | undefined } = {},
  ) {
    this.anchor = opts.anchor ?? new FolderAnchor(config);
    const events = eventLog(l.events, (err) => log.warn(`cannot append to events.jsonl: ${String(err)}`));
    // A fenced daemon writes no record, events included, and tells nobody of them.
    this.events = fencedEvents(observed(events, opts.observe), () => this.held);
    const both = { rejectedDir: l.rejected, asideDir: l.rejecting, events: this.events, log };
    this.intake = new Intake(config.directions, {
      ...both,
      maxBytes: config.inbox.max_bytes,
      settleMs: config.inbox.settle_ms,
      alsoWatch: [{ dir: l.requests, hint: { kind: 'requests' } }],
      anchor: this.anchor,
    });
    this.requestsListing = new RequestsListing(l.requests);
    this.approvalQueue = new Approvals({ ...both, root: l.pending, directions: config.directions });
    this.records = new ArchiveWriter(l.archive);
  }

  /** The conversation's clock: the files bus lives on one machine, whose own clock it is. */
  readonly now = (): number => Date.now();

  async lease(holder: Holder, onLost: (why: string) => void): Promise<Lease> {
    // The first lease may make the message folder; a later one (after the lease was lost) finds it or stops.
    await this.anchor.atLease();
    this.held = await acquireLock(this.l, onLost, holder);
    return this.held;
  }

  /**
   * Before every durable write: throws FolderGone when the project or message folder went (moved, removed,
   * replaced: anchor.ts), FencedError when this daemon may no longer write.
   */
  private guard(): void {
    this.anchor.check();
    this.held?.check();
  }

  async recover(): Promise<Recovered> {
    this.guard();
    const l = this.l;
    await Promise.all([l.archive, l.rejected, l.requests].map((d) => this.anchor.makeBelow(d)));
    await this.intake.ensureFolders();
    for (const d of [l.root, l.archive, l.rejected]) await sweepTemps(d);
    const notes = await this.intake.recover();
    const r = await recover(this.config, l);
    this.records = new ArchiveWriter(l.archive); // what it held is archived now (recovery.ts)
    this.st = r.state;
    if (r.stateChanged) await this.writeState();
    return { state: r.state, unfinished: r.unfinished, notes: [...notes, ...r.notes] };
  }

  readonly state = (): State => this.st;
  readonly watch = (hint: (h: Hint) => void) => this.intake.watch(hint);
  readonly unwatch = () => this.intake.unwatch();
  readonly queues = (): Promise<Queue[]> => this.intake.queues();
  readonly takeRejected = (): Rejected[] => this.intake.rejected.take();

  async rescan(): Promise<void> {
    this.guard();
    await this.intake.rescan();
    await dropStaleReplies(this.l.requests, 60_000, await this.requestsListing.names());
  }

  async reject(w: Waiting, reason: string): Promise<void> {
    this.guard();
    await this.intake.rejector.reject(this.intake.folderOf(w.direction.name), w.name, reason, refused(w as Entry));
  }

  async commit(w: Waiting | Approval, step: Step, extra: Record<string, unknown> = {}): Promise<Commit> {
    this.guard();
    const decision = step(this.st);
    if (decision.action !== 'deliver') return { kind: 'refused', decision };
    // One message held at a time: one whose delivery was left (never, with one courier) is archived first.
    await this.records.settle();
    const next = turnTaken(this.st, decision.next, new Date().toISOString());
    const fromApprovals = !('firstSeen' in w);
    const entry = fromApprovals ? null : (w as Entry);
    const c = await turnStep(this.l, this.config, this.intake.folderOf(w.direction.name), {
      name: w.name,
      from: fromApprovals ? this.approvalQueue.dir(w.direction) : w.direction.dir,
      known: entry?.result?.kind === 'valid' ? entry.result : null,
      firstSeen: entry?.firstSeen ?? performance.now(),
      decision,
      extra,
      log: this.log,
      next,
    });
    if (c.kind !== 'committed') return c;
    this.st = next;
    this.records.committed(c.record);
    return { ...c, state: next };
  }

  /** state.json as the daemon holds it: with the record of a message committed and not yet archived. */
  private writeState(): Promise<void> {
    return writeStateFile(this.l.state, this.st, this.records.held);
  }

  async settle(): Promise<void> {
    this.guard();
    await this.records.settle(); // state.json still names it: a record archived already is ignored there (held.ts)
  }

  async update(change: (state: State) => State): Promise<State> {
    this.guard();
    this.st = change(this.st);
    await this.writeState();
    return this.st;
  }

  async stamp(record: ArchiveRecord): Promise<void> {
    this.guard();
    if (await this.records.stamp(record)) failpoint('stamped');
  }

  readonly record = async (id: string) =>
    this.records.held?.id === id ? this.records.held : readRecord(this.l.archive, id);

  async amend(id: string, fields: Amendment): Promise<boolean> {
    this.guard();
    const held = this.records.held?.id === id;
    const done = await this.records.amend(id, fields);
    if (held) await this.writeState(); // what a hook reported survives a crash before the stamp
    return done;
  }

  async waitingFrom(agent: string): Promise<number> {
    await this.intake.rescan(); // a file written a moment ago, before its hint was handled, counts too
    const mine = [...(await this.intake.queues()).flatMap((q) => q.items), ...(await this.approvals())];
    return mine.filter((m) => m.direction.from === agent).length;
  }

  moderate(w: Waiting): Promise<'queued' | 'held' | 'gone'> {
    this.guard();
    return this.approvalQueue.queue(this.intake.folderOf(w.direction.name), w.name);
  }

  readonly approvals = (): Promise<Approval[]> => this.approvalQueue.list();

  refuse(a: Approval, reason: string): Promise<boolean> {
    this.guard();
    return this.approvalQueue.refuse(a, reason);
  }

  readonly examineApproval = (a: Approval) => this.approvalQueue.examine(a, this.config.inbox.max_bytes);

  /** Among the last 20 (a request is answered soon after it is made). */
  async findPersonMessage(request: string): Promise<ArchiveRecord | null> {
    for (const n of (await archivedCounters(this.l.archive, 'user')).slice(-20).reverse()) {
      const r = await readRecord(this.l.archive, formatId(n, 'user'));
      if (r?.request === request) return r;
    }
    return null;
  }

  async archivePersonMessage(make: (id: string) => ArchiveRecord): Promise<ArchiveRecord> {
    this.guard();
    // The archive is the record of user IDs too: the next one follows the last archived.
    const counters = await archivedCounters(this.l.archive, 'user');
    const record = make(formatId((counters.at(-1) ?? 0) + 1, 'user'));
    await archiveNew(this.l.archive, record);
    return record;
  }

  readonly requests = async () => pendingIn(await this.requestsListing.names());

  async takeRequest(name: string) {
    this.guard();
    if (answerable(name)) return takeOne(this.l.requests, name);
    // One that cannot be taken or answered (requests.ts) goes to rejected/, said once: left, it failed every pass.
    const reason = `not a request baton can take: its name is ${Buffer.byteLength(name)} bytes, no room for .taken and its reply's name`;
    const moved = await quarantine(this.l.rejected, join(this.l.requests, name), name, { reason });
    if (moved) this.log.warn(`requests/${name} moved to rejected/${moved}: ${reason}`);
    return null;
  }

  answer(taken: string, reply: Parameters<DeliveryBus['answer']>[1]): Promise<void> {
    this.guard();
    return answer(this.l.requests, taken, reply);
  }

  async forward(request: Request): Promise<void> {
    this.guard();
    await submitRequest(this.l.requests, request); // one machine: this daemon answers it itself
  }

  readonly close = () => this.intake.unwatch();
}
