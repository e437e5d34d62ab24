/**
 * An agent hears why its message was not delivered (invalid, a folder the policy never delivers, expired, a final
 * reply too big): moved aside with its reason, its sender once waited for ever. Typed back into the sender's pane as
 * a notice (no turn, no ID) only while no delivery is under way; rejections within a second go in one notice, at
 * most one every ten seconds. Another machine's agent is told by its daemon. Untold notices are forgotten at stop;
 * the rejections stay where `baton status` counts them.
 */
import { FencedError, type Queues, type TurnState } from '../bus/bus.js';
import { sanitize } from '../core/compose.js';
import { timing } from '../lib/timing.js';
import type { Uses } from './context.js';

/** Rejections are gathered this long before one notice: a burst (bad files found at start-up) is one notice. */
export const GATHER_MS = timing.rejectionGatherMs;
/** And an agent is told at most this often: a stream of bad files is a notice every ten seconds, not a flood. */
export const SPACING_MS = timing.rejectionSpacingMs;
/** How many rejections one notice names; the rest are counted. */
const NAMED = 5;
/** How many are kept for an agent that cannot be told now; older ones are only counted. */
const KEPT = 20;
/** A reason longer than this is cut (the whole of it is in the rejection's note). */
const REASON_CHARS = 300;

/** One message to tell its sender about. */
export interface Untold {
  /** What it was, as its sender knows it: `your message msg_….json`, `your final reply`. */
  what: string;
  to: string;
  reason: string;
}

export interface RejectionNoticeParts extends Uses<'config' | 'log' | 'wakeIn'> {
  bus: Queues & TurnState;
  /** Type text of baton's own into an agent's pane, or hand it to its machine (pipeline.ts): null when done. */
  typeInto(agent: string, text: string): Promise<string | null>;
  /** performance.now(), or a test's clock. */
  now?: () => number;
}

export class RejectionNotices {
  /** By sender: what it has not been told yet, and how many more beyond those. */
  private readonly untold = new Map<
    string,
    { items: Untold[]; dropped: number; failing: string | null; since: number }
  >();
  /** When each agent was last told (performance.now()). */
  private readonly told = new Map<string, number>();

  constructor(private readonly p: RejectionNoticeParts) {}

  private now(): number {
    return this.p.now ? this.p.now() : performance.now();
  }

  /** When what `agent` was not told since `since` may be told: gathered a second, ten since its last notice. */
  private due(agent: string, since: number): number {
    return Math.max(since + GATHER_MS, (this.told.get(agent) ?? -Infinity) + SPACING_MS);
  }

  /** A message of `agent`'s that was refused outside the bus's queues (an automatic reply). */
  add(agent: string, u: Untold): void {
    if (!this.p.config.agents[agent]) return;
    let e = this.untold.get(agent);
    if (!e) {
      this.untold.set(agent, (e = { items: [], dropped: 0, failing: null, since: this.now() }));
      this.p.wakeIn(this.due(agent, e.since) - this.now() + 5);
    }
    e.items.push(u);
    if (e.items.length > KEPT) {
      e.items.shift();
      e.dropped++;
    }
  }

  /**
   * Take what the bus rejected since the last pass; when `free` (no delivery under way), tell each sender
   * whose notice is due (gathered GATHER_MS, SPACING_MS after its last one), one notice each. Returns how
   * many notices were typed or handed on.
   */
  async tell(free: boolean): Promise<number> {
    for (const r of this.p.bus.takeRejected())
      this.add(r.direction.from, { what: `your message ${r.file}`, to: r.direction.to, reason: r.reason });
    if (!free) return 0;
    let told = 0;
    for (const [agent, e] of [...this.untold]) {
      if (this.now() < this.due(agent, e.since)) continue; // its wake-up comes then
      const text = noticeText(e.items, e.dropped, this.p.bus.state().current_turn === agent);
      const err = await this.p.typeInto(agent, text).catch((x: unknown) => {
        if (x instanceof FencedError) throw x; // the lease is the daemon's to handle
        return String(x instanceof Error ? x.message : x); // (a notice forwarded while the database is away)
      });
      if (err === null) {
        this.untold.delete(agent);
        this.told.set(agent, this.now());
        told++;
        this.p.log.info(`${agent} was told that ${e.items.length + e.dropped} of its messages were not delivered`);
      } else if (e.failing !== err) {
        e.failing = err; // said once per cause, not at every pass
        this.p.log.warn(`${agent} is not told yet that a message of its was not delivered: ${err}`);
      }
    }
    return told;
  }
}

const cut = (reason: string): string => {
  const one = sanitize(reason).replace(/\s+/g, ' ').trim();
  return one.length > REASON_CHARS ? `${one.slice(0, REASON_CHARS)}…` : one;
};

/** The notice: each rejected message, its receiver and why; and that the turn is still the sender's. */
export function noticeText(items: readonly Untold[], dropped: number, holdsTurn: boolean): string {
  const n = items.length + dropped;
  const lines =
    n === 1
      ? [`[baton] ${items[0]!.what} to ${items[0]!.to} was not delivered: ${cut(items[0]!.reason)}`]
      : [
          `[baton] ${n} of your messages were not delivered:`,
          ...items.slice(-NAMED).map((u) => `[baton] - ${u.what} to ${u.to}: ${cut(u.reason)}`),
          ...(n > NAMED ? [`[baton] - and ${n - NAMED} more (baton status counts the rejected ones)`] : []),
        ];
  lines.push(
    holdsTurn
      ? '[baton] it is still your turn; write a new message.'
      : '[baton] nothing was delivered for it; write it again, corrected, if it still matters.',
  );
  return sanitize(lines.join('\n')); // a file's name is the sender's own text too
}
