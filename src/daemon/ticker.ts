/**
 * One timer per period for a periodic chore of every daemon in this process (each conversation's rescan): a
 * timer each made an idle 50-conversation daemon wake 25 times a second. Each tick starts every member's chore at
 * once, so a slow one holds up no other. docs/decisions/0004-one-process-many-conversations.md.
 */
type Chore = () => Promise<void>;

const tickers = new Map<number, Ticker>();

/** Run `chore` every `ms` with every other chore of the same period in this process; returns leave. */
export function everyTick(ms: number, chore: Chore): () => void {
  let t = tickers.get(ms);
  if (!t) {
    const made = new Ticker(ms, () => tickers.get(ms) === made && tickers.delete(ms));
    tickers.set(ms, (t = made));
  }
  const member = { chore };
  t.join(member);
  let left = false;
  return () => {
    if (!left) t.leave(member);
    left = true;
  };
}

class Ticker {
  /** By identity: the same chore function may be joined twice (two daemons of one conversation, in turn). */
  private readonly members = new Set<{ chore: Chore }>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly ms: number,
    private readonly empty: () => unknown,
  ) {}

  join(m: { chore: Chore }): void {
    this.members.add(m);
    this.timer ??= setInterval(() => this.tick(), this.ms);
  }

  leave(m: { chore: Chore }): void {
    this.members.delete(m);
    if (this.members.size > 0) return;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.empty();
  }

  private tick(): void {
    // A chore handles its own errors (daemon.ts logs them); one that throws all the same stops no other.
    for (const m of [...this.members]) void m.chore().catch(() => {});
  }
}
