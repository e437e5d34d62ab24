/**
 * An agent started again while it holds the turn (a reboot, a crash, `down` and `up`, a pane brought back) is told
 * what it owes (core/restart.ts decides): its message again, flagged `(redelivered)`, or a reminder naming it —
 * untold, the new pane waited for a message, the conversation for its reply, and with `timeout_s: 0` nothing said so.
 * Known by the pane instance each delivery records (`typed_into`: pane id, first process, tmux server pid and start
 * time — none survives a restart) and how `baton up` started each client (@baton_start: `resumed` or `fresh`). The
 * holder's pane is looked at each rescan (one tmux query): another instance than its message's is a restart. Once
 * told, the record names the new pane, so a later daemon does not tell it twice.
 */
import type { Events, Queues, Records, TurnState } from '../bus/bus.js';
import { isLocal } from '../config/config.js';
import { replyHint } from '../core/compose.js';
import { owedAfterRestart, restartReminder, type Start } from '../core/restart.js';
import { paneRef, samePane, type PaneInfo } from '../terminal/pane.js';
import type { Typist } from '../terminal/typist.js';
import type { Courier } from './courier.js';
import type { Pipeline } from './pipeline.js';
import type { Uses } from './context.js';

/** How often at most the turn holder's pane is looked at (the 2 s rescan drives it: told within seconds). */
const LOOK_MS = 1500;

export interface RestartsParts extends Uses<'config' | 'log'> {
  bus: TurnState & Records & Queues & Events;
  typist: Pick<Typist, 'locate'>;
  typing: Pick<Pipeline, 'gate' | 'notice'>;
  courier: Pick<Courier, 'begin' | 'advance'>;
}

const keyOf = (p: { id: string; pid: number; server: string }) => `${p.id} ${p.pid} ${p.server}`;

export class Restarts {
  private lookedAt = Number.NEGATIVE_INFINITY;
  /** Panes already decided on for a message (nothing to tell), so the same one is not looked into again. */
  private readonly settled = new Set<string>();

  constructor(private readonly p: RestartsParts) {}

  /** Tell the turn holder what it owes if its pane is a new one. True when something was typed. */
  async check(): Promise<boolean> {
    const now = performance.now();
    if (now - this.lookedAt < LOOK_MS) return false;
    this.lookedAt = now;
    const st = this.p.bus.state();
    const holder = st.current_turn;
    const id = st.pending_reply_to;
    const agent = this.p.config.agents[holder];
    if (!id || !agent || !isLocal(this.p.config, holder)) return false;
    const pane = await this.p.typist.locate(agent);
    if (!pane || pane.dead || this.settled.has(`${id} ${keyOf(pane)}`)) return false;
    const record = await this.p.bus.record(id);
    if (!record?.typed_into || samePane(paneRef(pane), record.typed_into)) return false;
    const owed = owedAfterRestart({
      agent: holder,
      holder,
      finished: Boolean(st.finished),
      paused: Boolean(st.paused),
      owed: {
        id,
        receiver: record.receiver,
        delivered: Boolean(record.delivered_at),
        received: Boolean(record.received),
      },
      start: startOf(pane),
      answered: (await this.p.bus.waitingFrom(holder)) > 0,
    });
    if (owed.action === 'later') return false;
    if (owed.action === 'none') {
      this.settled.add(`${id} ${keyOf(pane)}`);
      return false;
    }
    const ready = await this.p.typing.gate(holder);
    if (!ready.ok) return false; // its client is still starting: looked at again (the gate's backoff wakes the loop)
    this.lookedAt = Number.NEGATIVE_INFINITY;
    const into = paneRef(ready.pane);
    this.p.log.info(`${holder} was started again (${pane.id}) and holds the turn: ${owed.action} ${id} (${owed.why})`);
    if (owed.action === 'redeliver') {
      const t = performance.now();
      this.p.courier.begin(record, { firstSeen: t, turnSince: t }, { typed: true });
      await this.p.courier.advance(ready.pane); // its stamp path records the pane it went into
    } else {
      const text = restartReminder({
        agent: holder,
        id,
        from: record.sender,
        resumed: pane.start === 'resumed',
        hint: replyHint(this.p.config, holder),
      });
      const err = await this.p.typing.notice(holder, text);
      if (err) {
        this.p.log.warn(`could not remind ${holder} of ${id}: ${err}`);
        return false;
      }
      await this.p.bus.amend(id, { typed_into: into });
    }
    await this.p.bus.events.emit('restarted', { agent: holder, id, told: owed.action, pane: pane.id, why: owed.why });
    return true;
  }
}

const startOf = (pane: PaneInfo): Start =>
  pane.start === 'resumed' || pane.start === 'fresh' ? pane.start : 'unknown';
