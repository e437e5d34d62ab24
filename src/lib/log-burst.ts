/**
 * Warnings that come by the thousand (a flood of bad files): the first few of each second are logged, the rest
 * counted and told in one line when the second is over (each still has its event and note). One by one, a
 * flood's 2,000 rejections were 8% of the daemon's busy time (consola formatting, --cpu-prof) and unread.
 */
export interface BurstOptions {
  /** Lines logged as they come in each window. */
  first: number;
  windowMs: number;
  /** The line that tells how many more there were. */
  more: (count: number) => string;
}

export class BurstLog {
  private windowStart = Number.NEGATIVE_INFINITY;
  private inWindow = 0;
  private held = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly warnLine: (line: string) => void,
    private readonly o: BurstOptions,
  ) {}

  warn(line: string, now = performance.now()): void {
    if (now - this.windowStart >= this.o.windowMs) {
      this.flush();
      this.windowStart = now;
      this.inWindow = 0;
    }
    if (this.inWindow++ < this.o.first) {
      this.warnLine(line);
      return;
    }
    this.held++;
    this.timer ??= setTimeout(() => this.flush(), this.windowStart + this.o.windowMs - now).unref();
  }

  /** Tell what was held back (at the window's end, or when the daemon stops). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.held === 0) return;
    const n = this.held;
    this.held = 0;
    this.warnLine(this.o.more(n));
  }
}
