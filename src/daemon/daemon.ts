/**
 * The daemon's lifecycle: take the bus's lease, recover what a crash left, start the loop and its watches, stop.
 * Its parts are made in wiring.ts; rules are pure functions in core/, storage is the bus (bus/), the panes are the
 * typist (terminal/). Nothing here touches a file or tmux directly.
 */
import {
  FencedError,
  isoAt,
  NewGeneration,
  StoreChanged,
  type Delivering,
  type DeliveryBus,
  type EventObserver,
  type Lease,
  type Posting,
} from '../bus/bus.js';
import { isLocal, type Config } from '../config/config.js';
import { log as defaultLog, type Logger } from '../lib/log.js';
import { hostname } from 'node:os';
import { tmuxFence } from '../terminal/fence.js';
import { Tmux } from '../terminal/tmux.js';
import { TmuxTypist } from '../terminal/tmux-typist.js';
import type { Typist } from '../terminal/typist.js';
import { ConfigWatch } from './reload.js';
import { everyTick } from './ticker.js';
import { type Parts, wire } from './wiring.js';
import { timing } from '../lib/timing.js';

/** Why a daemon stopped when its conversation was started anew: `baton daemon` follows the new one. */
export const NEW_GENERATION = 'new generation';

export interface DaemonOptions {
  typist?: Typist;
  log?: Logger;
  /** How often everything is looked at in full, to catch anything a hint missed. */
  rescanMs?: number;
  /** Answer the waiting requests and stop (`baton end`/`send`/… with no daemon running): nothing else is done. */
  oneshot?: boolean;
  /** A tmux client shared with other daemons in this process (daemon/serve.ts); it stays open when this one stops. */
  tmux?: Tmux;
  /** How many conversations this process serves: the lease says so, so `down`/`up` never signal it for one of them. */
  serves?: number;
  /** Told of every event it logs while it holds the lease (the notifier: daemon/notify/). */
  observe?: EventObserver;
}

export class Daemon {
  private readonly bus: DeliveryBus;
  private readonly typist: Typist;
  private readonly log: Logger;
  private readonly parts: Parts;
  /** config.json edited while it runs: applied, or said to need a restart (reload.ts). */
  private readonly configWatch: ConfigWatch;
  private lease: Lease | null = null;
  /** Leaves the process's shared rescan timer (ticker.ts). */
  private leaveTicks: (() => void) | null = null;
  private stopping = false;
  /** Why it stopped on its own when nothing can make it go on (its store changed under it): `baton daemon` exits with it. */
  failure: StoreChanged | null = null;
  /** Resolves with the reason once the daemon has stopped. */
  readonly done: Promise<string>;
  private resolveStopped!: (reason: string) => void;

  constructor(
    readonly config: Config,
    bus: Delivering & Posting,
    private readonly opts: DaemonOptions = {},
  ) {
    this.log = opts.log ?? defaultLog;
    this.typist =
      opts.typist ??
      new TmuxTypist(opts.tmux ?? new Tmux({ control: true }), () => config.delivery.enter_delay_ms, !opts.tmux);
    this.done = new Promise((r) => (this.resolveStopped = r));
    const oneshot = Boolean(opts.oneshot);
    this.parts = wire({
      config,
      bus,
      typist: this.typist,
      log: this.log,
      oneshot,
      observe: opts.observe,
      lifecycle: {
        stopping: () => this.stopping && !oneshot,
        checkLease: () => this.lease?.check(),
        fenced: (err) => this.fenced(err),
      },
    });
    this.bus = this.parts.bus;
    this.configWatch = new ConfigWatch({
      config,
      events: this.bus.events,
      log: this.log,
      serves: opts.serves ?? 1,
      applied: async () => {
        await this.parts.conductor.reconfigured();
        this.parts.scheduler.kick();
      },
    });
  }

  /** Take the lease, reconcile state with the archive, start watching. Throws LeaseHeldError or StateError. */
  async start(): Promise<void> {
    const me = {
      pid: process.pid,
      host: hostname(),
      started_at: new Date().toISOString(),
      dir: this.config.messageDir,
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
        this.parts.courier.begin(
          r.unfinished.record,
          { firstSeen: performance.now(), turnSince: performance.now() },
          { typed: r.unfinished.typed },
        );
      // Timeouts count from now for a turn whose start was never recorded (a new conversation, an older state.json);
      // by the conversation's clock, which the lease has read by now.
      const s = this.bus.state();
      const now = isoAt(this.bus.now());
      if (!s.turn_started_at || !s.started_at)
        await this.bus.update((st) => ({
          ...st,
          turn_started_at: st.turn_started_at ?? now,
          started_at: st.started_at ?? now,
        }));
      await this.parts.conductor.finishIfDue();
      if (this.opts.oneshot) {
        await this.parts.steering.answer();
        await this.stop('oneshot');
        return;
      }
      await this.bus.watch((h) => {
        if (h.kind === 'requests') this.parts.steering.expect();
        else if (h.direction) this.lookEarly(h.direction);
        this.parts.scheduler.kick();
      });
      await this.parts.receipts.watch(() => this.parts.scheduler.kick());
      if (this.stopping) {
        await this.bus.unwatch(); // lost the lease while starting
        return;
      }
      const { current_turn, message_counter } = this.bus.state();
      const { file: config, messageDir: message_dir, directions } = this.config;
      await this.bus.events.emit('started', { pid: process.pid, config, message_dir, current_turn, message_counter });
      this.log.info(`watching ${directions.length} folders in ${message_dir}; ${current_turn} has the turn`);
      await this.lookAtConfig(); // publishes what it runs (config/run-record.ts)
      this.leaveTicks = everyTick(this.opts.rescanMs ?? timing.rescanMs, () => this.rescan());
      await this.rescan();
    } catch (err) {
      // The lease may have been lost meanwhile (the database went away mid-recovery): stop() then ran
      // already and released it, so `this.lease` can be null here.
      await this.bus.unwatch();
      this.parts.receipts.unwatch();
      this.typist.close(); // its tmux control client would keep the process alive
      await this.lease?.release();
      this.lease = null;
      throw err;
    }
  }

  /** Finish the delivery step in progress, then stop watching and release the lease. */
  async stop(reason = 'signal'): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.leaveTicks?.();
    await this.bus.unwatch();
    this.parts.receipts.unwatch();
    await this.parts.scheduler.stop();
    this.typist.close();
    // A conversation started anew is not this daemon's to log into (it goes on in it at once).
    if (reason !== 'oneshot' && reason !== NEW_GENERATION)
      await this.bus.events.emit('stopped', { pid: process.pid, reason });
    await this.bus.close();
    await this.lease?.release();
    this.lease = null;
    if (reason !== NEW_GENERATION) this.log.info(`stopped (${reason})`); // (it goes on in the new one)
    this.resolveStopped(reason);
  }

  private async lookAtConfig(): Promise<void> {
    try {
      await this.configWatch.check();
    } catch (err) {
      if (!this.fenced(err)) this.log.warn(`looking at the config failed: ${String(err)}`);
    }
  }

  private async rescan(): Promise<void> {
    if (this.stopping) return;
    await this.lookAtConfig();
    try {
      await this.bus.rescan();
      if (!this.parts.steering.expecting && (await this.bus.requests()).length > 0) this.parts.steering.expect();
      this.parts.scheduler.kick();
    } catch (err) {
      if (!this.fenced(err)) this.log.warn(`rescan failed: ${String(err)}`);
    }
  }

  /** A message in `direction` may have come: its receiver's pane, if on this machine, is looked at now. */
  private lookEarly(direction: string): void {
    const to = this.config.directions.find((d) => d.name === direction)?.to;
    if (to && isLocal(this.config, to)) this.parts.availability.earlyLook(to);
  }

  /**
   * A write or keystroke was refused. The lease lost: stop (`baton daemon` takes it again or exits). Unproven (not
   * renewed in time, say after a pause): wait for the renewal. The store changed (a newer schema, its conversation
   * gone): stop and say why. Started anew (NewGeneration): stop — what it held is the old one's — and `baton
   * daemon` goes on in the new one at once (serve.ts), the panes untouched.
   */
  private fenced(err: unknown): boolean {
    if (err instanceof NewGeneration) {
      if (!this.stopping) {
        this.log.info(err.message);
        void this.stop(NEW_GENERATION);
      }
      return true;
    }
    if (err instanceof StoreChanged) {
      if (!this.failure) {
        this.failure = err;
        this.log.error(`${err.message}; this daemon writes nothing more and stops`);
        void this.stop('store changed');
      }
      return true;
    }
    if (!(err instanceof FencedError)) return false;
    if (!err.lost) {
      this.log.debug(`${err.message}; waiting for the lease to be renewed`);
      this.parts.scheduler.wakeIn(500);
      return true;
    }
    this.log.error(`${err.message}: this daemon types and writes nothing more`);
    void this.stop('fenced');
    return true;
  }
}
