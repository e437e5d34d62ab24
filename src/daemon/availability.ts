/**
 * Is an agent's pane available? The typist says (terminal/), this remembers outages: one
 * `pane_unavailable` event (and `screen_unknown` for a screen baton does not recognise) per outage, one
 * `pane_available` when it is back, and a capped backoff between tries (250 ms up to 5 s) while it is not.
 */
import type { Config } from '../config/config.js';
import type { EventLog } from '../bus/events.js';
import type { Logger } from '../lib/log.js';
import { targetOf } from '../terminal/pane.js';
import type { Ready, Typist } from '../terminal/typist.js';

const BACKOFF_MS = [250, 500, 1000, 2000, 4000, 5000];

export interface AvailabilityParts {
  config: Config;
  typist: Typist;
  events: EventLog;
  log: Logger;
  wakeIn(ms: number): void;
  /** A one-shot answer (no daemon running) only says why; outages are the running daemon's to report. */
  quiet: boolean;
}

export class Availability {
  /** Agents whose pane is unavailable (logged once per outage). */
  private readonly outages = new Set<string>();
  /** Failed attempts per agent since its last success, for the backoff. */
  private readonly attempts = new Map<string, number>();

  constructor(private readonly p: AvailabilityParts) {}

  /** The agent's pane when it is ready to be typed into, else why not (reported once per outage, retried). */
  async check(agentName: string, ours?: string): Promise<Ready> {
    const agent = this.p.config.agents[agentName]!;
    const ready = await this.p.typist.ready(agent, ours);
    if (this.p.quiet) return ready;
    const target = targetOf(agent);
    if (ready.ok) {
      if (this.outages.delete(agentName)) {
        this.attempts.delete(agentName);
        this.p.log.info(`${agentName}'s pane is back (${ready.pane.id})`);
        await this.p.events.emit('pane_available', { agent: agentName, target, pane: ready.pane.id });
      }
      return ready;
    }
    if (!this.outages.has(agentName)) {
      this.outages.add(agentName);
      this.p.log.warn(`cannot deliver to ${agentName}: ${ready.reason}; the message waits`);
      await this.p.events.emit('pane_unavailable', { agent: agentName, target, reason: ready.reason });
      if (ready.screen?.state === 'unknown' || ready.screen?.state === 'dialog')
        await this.p.events.emit('screen_unknown', {
          agent: agentName,
          state: ready.screen.state,
          detail: ready.screen.detail,
        });
    }
    this.retryLater(agentName);
    return ready;
  }

  /** Look again after the agent's next backoff step. */
  retryLater(agentName: string): void {
    const n = this.attempts.get(agentName) ?? 0;
    this.attempts.set(agentName, n + 1);
    this.p.wakeIn(BACKOFF_MS[Math.min(n, BACKOFF_MS.length - 1)]!);
  }

  /** A delivery to it went through: its backoff starts over. */
  succeeded(agentName: string): void {
    this.attempts.delete(agentName);
  }
}
