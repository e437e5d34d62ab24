/**
 * Is an agent's pane available? The last of the typing pipeline's gate (pipeline.ts), which alone asks it.
 * The typist says (terminal/), this remembers outages: one `pane_unavailable` event (and `screen_unknown` for
 * a screen baton does not recognise) per outage, one `pane_available` when it is back, and a capped backoff
 * between tries (250 ms up to 5 s) while it is not. A hint that a message came starts the look at its pane at
 * once (earlyLook), beside the pass; the check before the turn step takes that answer when it is fresh.
 */
import type { Events } from '../bus/events.js';
import { targetOf } from '../terminal/pane.js';
import { timing } from '../lib/timing.js';
import type { Ready } from '../terminal/typist.js';
import type { Uses } from './context.js';

const BACKOFF_MS = timing.paneRetryMs;
/** A look started on a hint is used by the check that follows it within this long, never later. */
const EARLY_MS = 25;

/** A one-shot answer (no daemon running) only says why; outages are the running daemon's to report. */
export interface AvailabilityParts extends Uses<'config' | 'log' | 'typist' | 'oneshot' | 'wakeIn'> {
  bus: Events;
}

export class Availability {
  /** Agents whose pane is unavailable (logged once per outage). */
  private readonly outages = new Set<string>();
  /** Failed attempts per agent since its last success, for the backoff. */
  private readonly attempts = new Map<string, number>();

  /** Looks started when a hint said a message for the agent came (earlyLook), each used once. */
  private readonly early = new Map<string, { at: number; ready: Promise<Ready> }>();
  /** When something was last typed into each pane (by id): an early look started before that is stale. */
  private readonly typedAt = new Map<string, number>();

  constructor(private readonly p: AvailabilityParts) {}

  /**
   * A message for the agent may have come: look at its pane now, while the pass reads the queues, so the check
   * before its turn step need not wait for tmux (traced across two machines, that look was 0.48 ms of a 4.4 ms
   * delivery, right after the 0.45 ms from the notification to the take: done side by side). Only a pane found
   * ready is taken from it, within EARLY_MS: as fresh as a look before the turn step (the paste itself checks
   * inside tmux that the pane is the same one).
   */
  earlyLook(agentName: string): void {
    const agent = this.p.config.agents[agentName];
    const last = this.early.get(agentName);
    if (!agent || (last && performance.now() - last.at <= EARLY_MS)) return;
    const ready = this.p.typist.ready(agent).catch((err: unknown): Ready => ({ ok: false, reason: String(err) }));
    this.early.set(agentName, { at: performance.now(), ready });
  }

  /** The agent's pane when it is ready to be typed into, else why not (reported once per outage, retried). */
  async check(agentName: string, ours?: string): Promise<Ready> {
    const agent = this.p.config.agents[agentName]!;
    const ready = (await this.takeEarly(agentName, ours)) ?? (await this.p.typist.ready(agent, ours));
    if (this.p.oneshot) return ready;
    const target = targetOf(agent);
    if (ready.ok) {
      if (this.outages.delete(agentName)) {
        this.attempts.delete(agentName);
        this.p.log.info(`${agentName}'s pane is back (${ready.pane.id})`);
        await this.p.bus.events.emit('pane_available', { agent: agentName, target, pane: ready.pane.id });
      }
      return ready;
    }
    if (!this.outages.has(agentName)) {
      this.outages.add(agentName);
      this.p.log.warn(`cannot deliver to ${agentName}: ${ready.reason}; the message waits`);
      await this.p.bus.events.emit('pane_unavailable', { agent: agentName, target, reason: ready.reason });
      const s = ready.screen;
      if (s?.state === 'unknown' || s?.state === 'dialog')
        await this.p.bus.events.emit('screen_unknown', { agent: agentName, state: s.state, detail: s.detail });
    }
    this.retryLater(agentName);
    return ready;
  }

  /** Something was typed into this pane (pipeline.ts): an early look at it started before that is stale. */
  typed(paneId: string): void {
    this.typedAt.set(paneId, performance.now());
  }

  /**
   * The early look at the agent's pane, when it found the pane ready within EARLY_MS and nothing was typed
   * into that pane since it started. A look tmux has not answered by then is not waited for.
   */
  private async takeEarly(agentName: string, ours?: string): Promise<Ready | null> {
    const e = this.early.get(agentName);
    if (!e) return null;
    this.early.delete(agentName);
    const left = EARLY_MS - (performance.now() - e.at);
    if (ours !== undefined || left < 0) return null;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<null>((r) => (timer = setTimeout(() => r(null), left)));
    const ready = await Promise.race([e.ready, late]);
    clearTimeout(timer);
    if (!ready?.ok || performance.now() - e.at > EARLY_MS) return null;
    return (this.typedAt.get(ready.pane.id) ?? Number.NEGATIVE_INFINITY) < e.at ? ready : null;
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
