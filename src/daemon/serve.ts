/**
 * `baton daemon [CONFIG...]`: one Daemon per conversation, all in this process, each with its own lease, fence
 * token and turn. One that lost its lease takes it again (unless its folders went with it: bus/anchor.ts); one whose
 * bus is unreachable tries every 2 s; one another daemon holds is left to it. One process because a process per
 * conversation flattened at 70–80 turns/s (bench/bus.mjs): docs/decisions/0004-one-process-many-conversations.md.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { FencedError, LeaseHeldError, NewGeneration, StoreChanged } from '../bus/bus.js';
import { explainBusError, isBusUnavailable, openBus } from '../bus/open.js';
import { ConfigError, type Config } from '../config/config.js';
import type { Logger } from '../lib/log.js';
import { Tmux } from '../terminal/tmux.js';
import { Daemon, NEW_GENERATION } from './daemon.js';
import { conversationOf, Notifier } from './notify/notifier.js';
import { timing } from '../lib/timing.js';

/**
 * A database away this long is told (an `error` notification): a restart or a network blip of a few seconds is
 * what the retries are for, and the person should not wake up for it.
 */
const DATABASE_AWAY_MS = 60_000;
/** How long a stopping daemon waits for notifications still on their way (within `baton down`'s grace). */
const NOTIFY_DRAIN_MS = 1000;

export class Service {
  private stopping: string | null = null;
  private readonly current = new Set<Daemon>();
  /** Shared by every conversation when there are several (one control client per tmux server). */
  private readonly tmux: Tmux | undefined;

  /**
   * `shared`: a tmux client and the number of conversations of a process that serves a changing set
   * (the machine's daemon, app/machine/): this Service serves one of them and leaves the client open.
   */
  constructor(
    private readonly configs: Config[],
    private readonly log: Logger,
    private readonly shared?: {
      tmux: Tmux;
      serves: number;
      /** A notification's link to the dashboard (the machine's daemon: the machine's dashboard too). */
      dashboard?: () => string | null;
    },
    /** How long the database may be away before it is told (DATABASE_AWAY_MS; a test shortens it). */
    private readonly databaseAwayMs = DATABASE_AWAY_MS,
  ) {
    this.tmux = shared?.tmux ?? (configs.length > 1 ? new Tmux({ control: true }) : undefined);
  }

  /** Finish each delivery in progress, then stop every daemon. */
  stop(reason: string): void {
    this.stopping ??= reason;
    for (const d of this.current) void d.stop(reason);
  }

  /**
   * Resolves with the exit code once every conversation has stopped. With one config its errors are
   * thrown (the CLI maps them to exit codes); with several, one conversation's failure is logged and the
   * others go on — the code is then the worst of them (3: another daemon holds one).
   */
  async run(): Promise<number> {
    if (this.configs.length === 1) return this.keep(this.configs[0]!, this.log);
    this.log.info(`serving ${this.configs.length} conversations: ${this.configs.map(conversationOf).join(', ')}`);
    const codes = await Promise.all(
      this.configs.map((config) => {
        const log = this.log.withTag(conversationOf(config)); // "[baton:review-42] …"
        return this.keep(config, log).catch((err: unknown) => {
          log.error(explainBusError(err) ?? (err instanceof Error ? err.message : String(err)));
          return err instanceof LeaseHeldError ? 3 : err instanceof ConfigError ? 2 : 1;
        });
      }),
    );
    if (!this.shared) this.tmux?.close();
    return Math.max(0, ...codes);
  }

  /**
   * One notifier per conversation for as long as it is served, across the daemons that take its lease in turn:
   * its cooldowns outlive a lease taken again, and it hears what no daemon can log (a lease lost, a database away).
   */
  private async keep(config: Config, log: Logger): Promise<number> {
    const dashboard = this.shared?.dashboard;
    const notifier = new Notifier({ config, log, ...(dashboard ? { dashboard } : {}) });
    try {
      return await this.keepWith(config, log, notifier);
    } catch (err) {
      if (err instanceof StoreChanged) notifier.trouble('store_changed', { error: err.message });
      throw err;
    } finally {
      notifier.close();
      await notifier.drain(NOTIFY_DRAIN_MS);
    }
  }

  private async keepWith(config: Config, log: Logger, notifier: Notifier): Promise<number> {
    const bus = openBus(config);
    let unreachable = 0;
    let awaySince: number | null = null;
    for (let attempt = 0; !this.stopping; attempt++) {
      const d = new Daemon(config, bus, {
        log,
        ...(this.tmux ? { tmux: this.tmux, serves: this.shared?.serves ?? this.configs.length } : {}),
        ...(notifier.active ? { observe: (event, fields) => notifier.observe(event, fields) } : {}),
      });
      try {
        await d.start();
      } catch (err) {
        // Fenced and another daemon holds it now: that one delivers, and this one exits (a woken daemon takes its
        // lease again or exits, so a conversation is never left without a daemon nor typed into by two).
        if (err instanceof NewGeneration && !this.stopping) continue; // started anew while it started: again
        if (attempt > 0 && err instanceof LeaseHeldError) {
          log.warn(`${err.message}: it delivers from now on; this daemon exits`);
          notifier.trouble('lease_lost', { error: `${err.message}: it delivers from now on; this daemon exits` });
          return 3;
        }
        // The database is away (docs/protocol.md §10), or the lease was lost while starting (the connection dropped
        // mid-recovery): type nothing until it is back, then take the lease again, recover and go on.
        if ((isBusUnavailable(err) || err instanceof FencedError) && !this.stopping) {
          const why = explainBusError(err) ?? `the bus cannot be reached (${(err as Error).message})`;
          if (unreachable++ % 15 === 0) log.warn(`${why}; trying again every ${timing.busRetryMs / 1000} s`);
          awaySince ??= Date.now();
          if (Date.now() - awaySince >= this.databaseAwayMs) {
            notifier.trouble('database_away', { error: why, since: new Date(awaySince).toISOString() });
            awaySince = Number.POSITIVE_INFINITY; // told once per outage
          }
          await sleep(timing.busRetryMs);
          continue;
        }
        throw err;
      }
      this.current.add(d);
      if (unreachable) log.info('the bus is back');
      unreachable = 0;
      awaySince = null;
      if (this.stopping) void d.stop(this.stopping);
      const reason = await d.done;
      this.current.delete(d);
      if (d.failure) throw d.failure; // its store changed under it: nothing to take again
      if (reason === NEW_GENERATION && !this.stopping) continue; // started anew elsewhere: recover the new one
      if (reason !== 'fenced' || this.stopping) return 0;
      // The lease was lost: take it again (recovery finds what the other holder did). Told only if it cannot be had
      // (LeaseHeldError above) or the database stays away: a laptop waking, a database restart get it back in seconds.
      log.warn('the lease was lost; taking it again');
    }
    return 0;
  }
}
