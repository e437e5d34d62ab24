/**
 * Deliveries stamped from the screen whose prompt hook has not reported within the bound, while the agent is not
 * busy: reported once (`delivery_unconfirmed`). When its hooks are known to work (they reported a baton message
 * before), that silence means the model did not get the text: a suspect the pass may type again, flagged, once
 * (pass.ts checks it is provably not in the box nor answered). Hooks that never reported prove nothing: only reported.
 */

import { timing } from '../lib/timing.js';

/** How long after its stamp a delivery's receipt may take (lib/timing.ts: tests shorten it). */
export const RECEIPT_BOUND_MS = timing.receiptBoundMs;

export interface Overdue {
  id: string;
  agent: string;
  afterMs: number;
  /** Worth typing again (the agent's hooks work, and it was not typed again already). */
  suspect: boolean;
}

export class Unconfirmed {
  /** Stamped deliveries whose receipt has not come yet: when they were stamped. */
  private readonly awaiting = new Map<string, { agent: string; since: number }>();
  /** Agents whose hooks have reported one of baton's messages. */
  private readonly working = new Set<string>();
  private readonly retyped = new Set<string>();
  private readonly suspects: Array<{ id: string; agent: string }> = [];

  constructor(
    private readonly agents: readonly string[],
    private readonly boundMs = RECEIPT_BOUND_MS,
  ) {}

  /** A delivery was stamped: its receipt is expected (agents with hooks only). */
  stamped(id: string, agent: string, received: boolean, now = performance.now()): void {
    if (!received && this.agents.includes(agent)) this.awaiting.set(id, { agent, since: now });
  }

  /** Its receipt came: the agent's hooks work. */
  received(id: string, agent: string): void {
    this.awaiting.delete(id);
    this.working.add(agent);
  }

  /** The deliveries overdue now (their agents not busy), each once; the suspects among them queued. */
  due(busy: (agent: string) => boolean, now = performance.now()): Overdue[] {
    const out: Overdue[] = [];
    for (const [id, a] of this.awaiting) {
      if (now - a.since < this.boundMs || busy(a.agent)) continue;
      this.awaiting.delete(id);
      const suspect = this.working.has(a.agent) && !this.retyped.has(id);
      if (suspect) {
        this.retyped.add(id);
        this.suspects.push({ id, agent: a.agent });
      }
      out.push({ id, agent: a.agent, afterMs: Math.round(now - a.since), suspect });
    }
    return out;
  }

  /** The next message to check, and type again if it provably did not arrive. */
  next(): { id: string; agent: string } | undefined {
    return this.suspects.shift();
  }
}
