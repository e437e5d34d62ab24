/**
 * The daemon's parts, made in the order they depend on one another — nothing is used before it exists:
 *
 *   scheduler (when to look) → availability (is a pane there) → the delivery under way → dialogs (who
 *   waits for a person) → the typing pipeline (everything typed into a pane) → conductor (reminders, endings) → rejection notices →
 *   receipts (what the hooks report) → courier (typing one message) → queue scan → taker (taking one
 *   message) → steering (a person's requests) → restarts (a holder started again) → pass (one look at it all)
 *
 * The one loop is the scheduler's: a pass's parts ask it for wake-ups, so it is made first, and it is
 * given the pass last (scheduler.drive). The conductor and steering do not know the pass: what they need
 * of a delivery (its receiver, taking a message) is a part of its own they are given (underway.ts, take.ts).
 */
import type { Delivering, DeliveryBus, EventObserver, Posting } from '../bus/bus.js';
import type { Config } from '../config/config.js';
import type { Rules } from '../core/turns.js';
import type { Logger } from '../lib/log.js';
import { DialogFiles } from '../terminal/hooks/dialog-files.js';
import { SpoolIntake } from '../terminal/hooks/intake.js';
import type { Typist } from '../terminal/typist.js';
import { Availability } from './availability.js';
import { CatchUps, PersonRecords, type RecordReader } from './catch-up.js';
import { shownParts } from './shown.js';
import { ClosingTurn } from './closing.js';
import { Conductor, type ConductorParts } from './conductor.js';
import { LoopGuard } from './loop-guard.js';
import { Courier } from './courier.js';
import { Dialogs } from './dialogs.js';
import { Notes } from './notes.js';
import { Pass } from './pass.js';
import { Pipeline, type PipelineParts } from './pipeline.js';
import { Receipts } from './receipts.js';
import type { Post } from './turn-ends.js';
import { RejectionNotices } from './rejections.js';
import { Restarts } from './restarted.js';
import { QueueScan } from './scan.js';
import { Scheduler } from './scheduler.js';
import { Steering } from './steering.js';
import { Taker } from './take.js';
import { Underway } from './underway.js';

/** What the parts ask of the daemon's lifecycle (daemon.ts: the lease, stopping). */
interface Lifecycle {
  /** The daemon is stopping: requests not yet taken are left for the next one. */
  stopping(): boolean;
  /** Throws when the lease is lost. */
  checkLease(): void;
  /** A write or keystroke was refused: true when the lifecycle handled it (the lease lost or unproven). */
  fenced(err: unknown): boolean;
}

export interface Wiring {
  config: Config;
  /** The daemon's side of the bus is opened from it; a reply posted for an agent goes through its post. */
  bus: Delivering & Posting;
  typist: Typist;
  log: Logger;
  /** Answer the waiting requests and stop (no daemon running): outages are not reported. */
  oneshot: boolean;
  lifecycle: Lifecycle;
  /** Told of every event the daemon logs (the notifier, daemon/notify/). */
  observe?: EventObserver | undefined;
}

export interface Parts {
  bus: DeliveryBus;
  scheduler: Scheduler;
  receipts: Receipts;
  courier: Courier;
  conductor: Conductor;
  steering: Steering;
  availability: Availability;
  dialogs: Dialogs;
}

/**
 * What typing into a pane depends on: availability (is a pane there), the delivery under way, who waits at a
 * dialog (dialogs.ts), the typing pipeline whose gate asks them first — nothing is typed into a pane whose
 * dialog is open — and the conductor, whose turn clock stood still while the holder was blocked.
 */
function typingParts(w: Wiring, p: { bus: DeliveryBus; wakeIn(ms: number): void }) {
  const { config, log, typist, oneshot } = w;
  const availability = new Availability({
    config,
    typist,
    events: p.bus.events,
    log,
    wakeIn: p.wakeIn,
    quiet: oneshot,
  });
  const underway = new Underway();
  const dialogs = new Dialogs({
    config,
    bus: p.bus,
    typist,
    store: new DialogFiles(config.messageDir),
    log,
    wakeIn: p.wakeIn,
    changed: () => conductor.replan(),
  });
  const typing = pipeline(
    { config, typist, availability, underway, bus: p.bus, log, hold: (agent) => dialogs.hold(agent) },
    p.bus,
  );
  const typeInto = (agent: string, text: string) => typing.notice(agent, text);
  const conductor = conductorFor({ config, bus: p.bus, log, underway, typeInto, wakeIn: p.wakeIn });
  return { availability, underway, dialogs, typing, typeInto, conductor };
}

/** The typing pipeline; on the PostgreSQL bus it keeps a copy of what it names for `baton show` (shown.ts). */
function pipeline(p: Omit<PipelineParts, 'shown'>, records: RecordReader): Pipeline {
  return new Pipeline({ ...p, ...shownParts(p.config, records, p.log) });
}

/** The conductor, with the closing turn it asks at a finish and the loop guard it runs after a delivery. */
function conductorFor(p: Omit<ConductorParts, 'closing' | 'loop'>): Conductor {
  return new Conductor({ ...p, closing: new ClosingTurn(p), loop: new LoopGuard(p) });
}

/** How a final reply is posted for an agent: as `baton post` would. */
const replyPost =
  (w: Wiring, rejections: RejectionNotices): Post =>
  async (d, m) => {
    const posted = await w.bus.post(d, m);
    // A final reply the daemon would reject (over inbox.max_bytes): stored nowhere, and its agent is told.
    if (posted.kind === 'refused')
      rejections.add(d.from, { what: 'your final reply', to: d.to, reason: posted.reason });
    return posted;
  };

export function wire(w: Wiring): Parts {
  const { config, log, oneshot, lifecycle } = w;
  const bus = w.bus.delivery(log, w.observe);
  const rules: Rules = { policy: config.turns.policy, agents: config.order };
  // Fenced (the lease lost: paused past it, taken over): the lifecycle stops at once, or waits for the renewal.
  const scheduler = new Scheduler(log, (err) => lifecycle.fenced(err));
  const wakeIn = (ms: number) => scheduler.wakeIn(ms);
  const { availability, underway, dialogs, typing, typeInto, conductor } = typingParts(w, { bus, wakeIn });
  const rejections = new RejectionNotices({ config, bus, log, typeInto, wakeIn });
  const receipts = new Receipts({
    config,
    bus,
    rules,
    intake: new SpoolIntake(config, log),
    dialogs,
    post: replyPost(w, rejections),
    log,
    finish: (reason) => conductor.finish(reason),
    wakeIn,
    checkLease: () => lifecycle.checkLease(),
  });
  // A person's records, read once and shared: the topics a catch-up names, the notes still on their way.
  const people = new PersonRecords(bus, config.order);
  const catchUps = new CatchUps(config, bus, people);
  const courier = new Courier({
    config,
    bus,
    typing,
    log,
    underway,
    receipts,
    delivered: (record) => conductor.afterDelivery(record),
    catchUp: (record) => catchUps.text(record),
  });
  const notes = new Notes({ config, bus, typing, log, people, oneshot });
  const scan = new QueueScan({ bus, rules, log, wakeIn });
  const taker = new Taker({
    bus,
    rules,
    typing,
    courier,
    committed: (record) => conductor.replan(record),
    timing: (w) => scan.timing(w),
  });
  const steering = new Steering({
    config,
    bus,
    typing,
    log,
    rules,
    oneshot,
    stopping: () => lifecycle.stopping(),
    deliveringTo: () => underway.to,
    take: (waiting, extra) => taker.take(waiting, extra),
    receiptFor: (id) => receipts.takeEarly(id),
    finish: (reason, note) => conductor.finish(reason, note),
    notes,
    keys: w.typist,
    answered: (agent) => dialogs.soon(agent),
    resumed: () => {
      conductor.replan();
      scan.forgetHeld();
      scheduler.kick();
    },
  });
  const pass = new Pass({
    config,
    bus,
    log,
    typing,
    receipts,
    dialogs,
    courier,
    steering,
    conductor,
    scan,
    rejections,
    notes,
    taker,
    restarts: new Restarts({ config, bus, typist: w.typist, typing, courier, log }),
  });
  scheduler.drive(() => pass.run());
  return { bus, scheduler, receipts, courier, conductor, steering, availability, dialogs };
}
