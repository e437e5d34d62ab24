/**
 * The daemon: wiring only. It takes the bus's lease, recovers what a crash left, and runs the loop —
 * the scheduler (when to look), one pass (what to deliver), the courier (typing one message phase by
 * phase), availability (is a pane there), steering (a person's requests) and the conductor (reminders,
 * endings). The rules are pure functions in core/; storage is the bus (bus/); the panes are the typist
 * (terminal/). Nothing here touches a file or tmux directly.
 */
import { FencedError, type Bus, type DeliveryBus, type Lease } from '../bus/bus.js';
import type { Config } from '../config/config.js';
import { endsWith, rulesFor } from '../core/conversation.js';
import type { ArchiveRecord } from '../core/record.js';
import type { Rules } from '../core/turns.js';
import { log as defaultLog, type Logger } from '../lib/log.js';
import { hostname } from 'node:os';
import { tmuxFence } from '../terminal/fence.js';
import { Tmux } from '../terminal/tmux.js';
import { TmuxTypist } from '../terminal/tmux-typist.js';
import type { Typist } from '../terminal/typist.js';
import { Availability } from './availability.js';
import { Conductor } from './conductor.js';
import { Courier } from './courier.js';
import { Pass } from './pass.js';
import { Receipts } from './receipts.js';
import { typeNotice } from './notice.js';
import { Scheduler } from './scheduler.js';
import type { Stage } from './stage.js';
import { Steering } from './steering.js';

export interface DaemonOptions {
  typist?: Typist;
  log?: Logger;
  /** How often everything is looked at in full, to catch anything a hint missed. */
  rescanMs?: number;
  /**
   * Answer the waiting requests and stop: what a `baton end`/`send`/… does itself when no daemon is
   * running. Nothing is watched and no message is delivered.
   */
  oneshot?: boolean;
  /** A tmux client shared with other daemons in this process (daemon/serve.ts); it stays open when this one stops. */
  tmux?: Tmux;
  /** How many conversations this process serves: the lease says so, so `down`/`up` never signal it for one of them. */
  serves?: number;
}

export class Daemon {
  private readonly bus: DeliveryBus;
  private readonly typist: Typist;
  private readonly log: Logger;
  private readonly rules: Rules;
  private readonly scheduler: Scheduler;
  private readonly availability: Availability;
  private readonly courier: Courier;
  private readonly steering: Steering;
  private readonly conductor: Conductor;
  private readonly pass: Pass;
  private readonly receipts: Receipts;
  private lease: Lease | null = null;
  private rescanTimer: NodeJS.Timeout | null = null;
  /** A request may be waiting. */
  private requestsWaiting = true;
  private stopping = false;
  private stopped!: Promise<string>;
  private resolveStopped!: (reason: string) => void;

  constructor(
    readonly config: Config,
    bus: Bus,
    private readonly opts: DaemonOptions = {},
  ) {
    this.log = opts.log ?? defaultLog;
    this.bus = bus.delivery(this.log);
    this.typist =
      opts.typist ??
      new TmuxTypist(opts.tmux ?? new Tmux({ control: true }), config.delivery.enter_delay_ms, !opts.tmux);
    this.rules = { policy: config.turns.policy, agents: config.order };
    this.stopped = new Promise((r) => (this.resolveStopped = r));
    // Fenced (the lease lost: paused past it, taken over): stop at once; `baton daemon` takes it again or exits.
    this.scheduler = new Scheduler(
      () => this.pass.run(),
      this.log,
      (err) => this.fenced(err),
    );
    const wakeIn = (ms: number) => this.scheduler.wakeIn(ms);
    this.availability = new Availability(config, this.typist, this.bus.events, this.log, wakeIn, Boolean(opts.oneshot));
    this.receipts = new Receipts(config, this.bus, this.rules, (d, m) => bus.post(d, m), this.log, {
      finish: (r) => this.conductor.finish(r),
      wakeIn,
      check: () => this.lease?.check(),
    });
    this.courier = new Courier(
      config,
      this.bus,
      this.typist,
      this.availability,
      this.log,
      (r) => this.delivered(r),
      this.receipts,
    );
    const stage: Stage = {
      config,
      bus: this.bus,
      typist: this.typist,
      log: this.log,
      rules: this.rules,
      oneshot: Boolean(opts.oneshot),
      deliveringTo: () => this.courier.to,
      take: (w, extra) => this.pass.take(w, extra),
      ready: (agent) => this.availability.check(agent),
      typeInto: (agent, text) =>
        typeNotice({ config, bus: this.bus, availability: this.availability, typist: this.typist }, agent, text),
      receiptFor: (id) => this.receipts.takeEarly(id),
      finish: (reason, note) => this.conductor.finish(reason, note),
      wakeIn,
      resumed: () => {
        this.conductor.replan();
        this.pass.forgetHeld();
        this.scheduler.kick();
      },
    };
    this.steering = new Steering(stage);
    this.conductor = new Conductor(stage);
    this.pass = new Pass(config, this.rules, this.bus, this.courier, this.availability, this.log, {
      readHooks: () => this.receipts.run(),
      requestsWaiting: () => this.requestsWaiting,
      runRequests: () => this.runRequests(),
      conduct: () => this.conductor.conduct(),
      committed: (record) => this.conductor.replan(record),
      wakeIn,
      suspect: () => this.receipts.suspect(),
    });
  }

  /** Take the lease, reconcile state with the archive, start watching. Throws LeaseHeldError or StateError. */
  async start(): Promise<void> {
    const me = {
      pid: process.pid,
      host: hostname(),
      started_at: new Date().toISOString(),
      ...(this.opts.serves ? { serves: this.opts.serves } : {}),
    };
    this.lease = await this.bus.lease(me, (why) => {
      this.log.error(`${why}; stopping so two daemons never deliver at once`);
      void this.stop('fenced');
    });
    try {
      // From here every keystroke carries this lease's token: one a newer holder raised is refused by tmux.
      await this.typist.fence(tmuxFence(this.lease.fence));
      const r = await this.bus.recover();
      for (const note of r.notes) this.log.warn(note);
      if (r.notes.length) await this.bus.events.emit('recovered', { notes: r.notes });
      if (r.unfinished)
        this.courier.begin(
          r.unfinished.record,
          { firstSeen: performance.now(), turnSince: performance.now() },
          { typed: r.unfinished.typed, saved: true },
        );
      const s = this.bus.state();
      if (!s.turn_started_at || !s.started_at) {
        // Timeouts count from now for a turn whose start was never recorded (a new conversation, or an older state.json).
        const now = new Date().toISOString();
        await this.bus.update((st) => ({
          ...st,
          turn_started_at: st.turn_started_at ?? now,
          started_at: st.started_at ?? now,
        }));
      }
      await this.finishIfDue();
      if (this.opts.oneshot) {
        await this.runRequests();
        await this.stop('oneshot');
        return;
      }
      await this.bus.watch((h) => {
        if (h.kind === 'requests') this.requestsWaiting = true;
        this.scheduler.kick();
      });
      await this.receipts.watch(() => this.scheduler.kick());
      if (this.stopping) {
        await this.bus.unwatch(); // lost the lease while starting
        return;
      }
      const st = this.bus.state();
      await this.bus.events.emit('started', {
        pid: process.pid,
        config: this.config.file,
        message_dir: this.config.messageDir,
        current_turn: st.current_turn,
        message_counter: st.message_counter,
      });
      this.log.info(
        `watching ${this.config.directions.length} folders in ${this.config.messageDir}; ${st.current_turn} has the turn`,
      );
      this.rescanTimer = setInterval(() => void this.rescan(), this.opts.rescanMs ?? 2000);
      await this.rescan();
    } catch (err) {
      // The lease may have been lost meanwhile (the database went away mid-recovery): stop() then ran
      // already and released it, so `this.lease` can be null here.
      await this.bus.unwatch();
      this.receipts.unwatch();
      this.typist.close(); // its tmux control client would keep the process alive
      await this.lease?.release();
      this.lease = null;
      throw err;
    }
  }

  /** Resolves with the reason once the daemon has stopped. */
  get done(): Promise<string> {
    return this.stopped;
  }

  /** Finish the delivery step in progress, then stop watching and release the lease. */
  async stop(reason = 'signal'): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    if (this.rescanTimer) clearInterval(this.rescanTimer);
    await this.bus.unwatch();
    this.receipts.unwatch();
    await this.scheduler.stop();
    this.typist.close();
    if (reason !== 'oneshot') await this.bus.events.emit('stopped', { pid: process.pid, reason });
    await this.bus.close();
    await this.lease?.release();
    this.lease = null;
    this.log.info(`stopped (${reason})`);
    this.resolveStopped(reason);
  }

  private async rescan(): Promise<void> {
    if (this.stopping) return;
    try {
      await this.bus.rescan();
      this.requestsWaiting ||= (await this.bus.requests()).length > 0;
      this.scheduler.kick();
    } catch (err) {
      if (!this.fenced(err)) this.log.warn(`rescan failed: ${String(err)}`);
    }
  }

  /**
   * A write or keystroke was refused. Lost: stop at once (`baton daemon` takes the lease again or exits).
   * Unproven (not renewed in time, say after a pause): do nothing until the renewal settles it.
   */
  private fenced(err: unknown): boolean {
    if (!(err instanceof FencedError)) return false;
    if (!err.lost) {
      this.log.debug(`${err.message}; waiting for the lease to be renewed`);
      this.scheduler.wakeIn(500);
      return true;
    }
    this.log.error(`${err.message}: this daemon types and writes nothing more`);
    void this.stop('fenced');
    return true;
  }

  /** Answer a person's waiting requests (steering.ts). */
  private async runRequests(): Promise<void> {
    this.requestsWaiting = false;
    await this.steering.runRequests(() => this.stopping && !this.opts.oneshot);
  }

  /** A delivery was stamped: does it end the conversation (stop phrase, max_turns)? */
  private async delivered(r: ArchiveRecord): Promise<void> {
    const s = this.bus.state();
    const ends = s.finished
      ? null
      : endsWith(s, { from: r.sender, content: r.content }, rulesFor(this.config.turns, s));
    if (ends) await this.conductor.finish(ends);
  }

  /**
   * A daemon killed between stamping a delivery and writing `finished` (stop phrase, max_turns): end the
   * conversation now. Only for a delivery of the current turn (a resume since then starts a new one).
   */
  private async finishIfDue(): Promise<void> {
    const s = this.bus.state();
    if (s.finished || this.courier.busy || !s.last_message_id || !s.turn_started_at) return;
    const last = await this.bus.record(s.last_message_id);
    if (!last?.delivered_at || last.delivered_at < s.turn_started_at) return;
    const ends = endsWith(s, { from: last.sender, content: last.content }, rulesFor(this.config.turns, s));
    if (ends) await this.conductor.finish(ends);
  }
}
