/**
 * The daemon's parts, made in the order they depend on one another (nothing is used before it exists): scheduler,
 * availability, the delivery under way, dialogs, the typing pipeline, conductor, rejection notices, receipts,
 * courier, queue scan, taker, steering, restarts, pass. The one loop is the scheduler's: parts ask it for wake-ups,
 * so it is made first and given the pass last (scheduler.drive). The conductor and steering do not know the pass:
 * what they need of a delivery is a part of its own (underway.ts, take.ts).
 */
import type { Delivering, DeliveryBus, EventObserver, Posting } from '../bus/bus.js';
import type { Rules } from '../core/turns.js';
import { DialogFiles } from '../terminal/hooks/dialog-files.js';
import { SpoolIntake } from '../terminal/hooks/intake.js';
import { Availability } from './availability.js';
import { CatchUps, PersonRecords } from './catch-up.js';
import { shownParts } from './shown.js';
import { ClosingTurn } from './closing.js';
import { Conductor } from './conductor.js';
import type { DaemonContext, Uses } from './context.js';
import { LoopGuard } from './loop-guard.js';
import { Courier } from './courier.js';
import { Dialogs } from './dialogs.js';
import { Notes } from './notes.js';
import { Pass } from './pass.js';
import { Pipeline } from './pipeline.js';
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

export interface Wiring extends Uses<'config' | 'typist' | 'log' | 'oneshot'> {
  /** The daemon's side of the bus is opened from it; a reply posted for an agent goes through its post. */
  bus: Delivering & Posting;
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
function typingParts(ctx: DaemonContext) {
  const availability = new Availability(ctx);
  const underway = new Underway();
  const spool = new SpoolIntake(ctx.config, ctx.log);
  const dialogs = new Dialogs({
    ...ctx,
    store: new DialogFiles(ctx.config.messageDir),
    spool,
    changed: () => conductor.replan(),
  });
  // On the PostgreSQL bus the pipeline keeps a copy of what it names for `baton show` (shown.ts).
  const hold = (agent: string) => dialogs.holdNow(agent);
  const typing = new Pipeline({ ...ctx, availability, underway, hold, ...shownParts(ctx.config, ctx.bus, ctx.log) });
  const typeInto = (agent: string, text: string) => typing.notice(agent, text);
  // The closing turn is asked at a finish, the loop guard after a delivery.
  const p = { ...ctx, underway, typeInto };
  const conductor = new Conductor({ ...p, closing: new ClosingTurn(p), loop: new LoopGuard(p) });
  return { availability, underway, dialogs, typing, typeInto, conductor, spool };
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
  const { config, log, lifecycle } = w;
  const bus = w.bus.delivery(log, w.observe);
  // Fenced (the lease lost: paused past it, taken over): the lifecycle stops at once, or waits for the renewal.
  const scheduler = new Scheduler(log, (err) => lifecycle.fenced(err));
  const rules: Rules = { policy: config.turns.policy, agents: config.order };
  const ctx: DaemonContext = { ...w, bus, rules, wakeIn: (ms) => scheduler.wakeIn(ms) };
  const { availability, underway, dialogs, typing, typeInto, conductor, spool } = typingParts(ctx);
  const rejections = new RejectionNotices({ ...ctx, typeInto });
  const receipts = new Receipts({
    ...ctx,
    intake: spool,
    dialogs,
    post: replyPost(w, rejections),
    finish: (reason) => conductor.finish(reason),
    checkLease: () => lifecycle.checkLease(),
  });
  // A person's records, read once and shared: the topics a catch-up names, the notes still on their way.
  const people = new PersonRecords(bus, config.order);
  const catchUps = new CatchUps(config, bus, people);
  const courier = new Courier({
    ...ctx,
    typing,
    underway,
    receipts,
    delivered: (record) => conductor.afterDelivery(record),
    catchUp: (record) => catchUps.text(record),
  });
  const notes = new Notes({ ...ctx, typing, people });
  const scan = new QueueScan(ctx);
  const taker = new Taker({
    ...ctx,
    typing,
    courier,
    committed: (record) => conductor.replan(record),
    timing: (w) => scan.timing(w),
  });
  const steering = new Steering({
    ...ctx,
    typing,
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
    ...ctx,
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
    restarts: new Restarts({ ...ctx, typing, courier }),
  });
  scheduler.drive(() => pass.run());
  return { bus, scheduler, receipts, courier, conductor, steering, availability, dialogs };
}
