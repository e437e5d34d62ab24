/**
 * When the daemon looks: one pass at a time, run again whenever something asked for one during a pass (a hint, a
 * timer, a wake-up), so no kick is lost and passes never overlap. A pass that did something is followed by another
 * at once; one that could not is woken later. The pass is given last (drive()): its parts ask this for wake-ups, so
 * it is made before them (daemon/wiring.ts).
 */
import type { Logger } from '../lib/log.js';

export class Scheduler {
  private running: Promise<void> | null = null;
  private again = false;
  private stopping = false;
  private wakeTimer: NodeJS.Timeout | null = null;
  private wakeAt = Infinity;
  /** One pass; true when it did something and another should follow at once. */
  private pass: (() => Promise<boolean>) | null = null;

  constructor(
    private readonly log: Logger,
    /** An error the daemon handles itself (the lease lost); true when it did. */
    private readonly handled: (err: unknown) => boolean = () => false,
  ) {}

  /** The pass to run from now on; a kick that came before it runs it now. */
  drive(pass: () => Promise<boolean>): void {
    this.pass = pass;
    if (this.again) this.running ??= this.loop();
  }

  /** Run a pass now, or once more after the current one. */
  kick(): void {
    if (this.stopping) return;
    this.again = true;
    if (this.pass) this.running ??= this.loop();
  }

  /** Ask for a pass at most `ms` from now (keeps the earliest request). */
  wakeIn(ms: number): void {
    if (this.stopping) return;
    // setTimeout fires at once for a delay past 2^31-1 ms (~24.8 days): a deadline a month away would spin.
    ms = Math.min(ms, 2 ** 31 - 1);
    const at = performance.now() + ms;
    if (this.wakeTimer && at >= this.wakeAt) return;
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    this.wakeAt = at;
    this.wakeTimer = setTimeout(() => {
      this.wakeTimer = null;
      this.wakeAt = Infinity;
      this.kick();
    }, ms);
  }

  /** No more passes; resolves when the one running (if any) is done. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    await this.running?.catch(() => {});
  }

  private async loop(): Promise<void> {
    try {
      // `again` is checked and `running` cleared with no await in between, so no kick is ever lost.
      while (this.again && !this.stopping) {
        this.again = false;
        try {
          while (!this.stopping && (await this.pass!())) {
            /* did something; look again */
          }
        } catch (err) {
          if (this.handled(err)) return;
          // Nothing a file contains may stop the daemon; an unexpected failure is logged and retried.
          this.log.error(`delivery loop: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
          this.wakeIn(1000);
        }
      }
    } finally {
      this.running = null;
    }
  }
}
