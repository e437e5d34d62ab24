/**
 * Conversation control in the daemon's loop (docs/protocol.md §9): ending by max_duration, by max_turns or
 * the stop phrase after a delivery (afterDelivery), reminding a silent turn holder, marking it stalled,
 * and telling every pane when it is over. The rules are the pure functions of conversation.ts; this is
 * their clock and their typing.
 */
import { replyHint, sanitize } from '../core/compose.js';
import { durationEndsAt, endsWith, nudgePlan, rulesFor, type FinishReason } from '../core/conversation.js';
import { isLocal } from '../config/config.js';
import { turnTimeout } from '../core/message.js';
import {
  isoAt,
  type Clock,
  type Events,
  type Moderation,
  type Queues,
  type Records,
  type TurnState,
} from '../bus/bus.js';
import type { ArchiveRecord } from '../core/record.js';
import type { ClosingTurn } from './closing.js';
import type { LoopGuard } from './loop-guard.js';
import type { Underway } from './underway.js';
import type { Uses } from './context.js';

export interface ConductorParts extends Uses<'config' | 'log' | 'wakeIn'> {
  bus: TurnState & Records & Queues & Moderation & Events & Clock;
  /** The delivery not yet stamped: while there is one, an ending its stamp may owe is not looked for. */
  underway: Underway;
  /** Type text of baton's own into an agent's pane (pipeline.ts). Null when typed, else why not. */
  typeInto(agent: string, text: string): Promise<string | null>;
  /** The closing turn (closing.ts): asked at a finish, its outcome noted at its delivery. */
  closing?: Pick<ClosingTurn, 'finished' | 'ask' | 'delivered'>;
  /** The loop guard (loop-guard.ts): looked at after a delivery that did not end the conversation. */
  loop?: Pick<LoopGuard, 'afterDelivery'>;
}

export class Conductor {
  /** When control next needs a look (ms since the epoch); Infinity: never; 0: now. */
  private at = 0;

  constructor(private readonly p: ConductorParts) {}

  /**
   * Plan again at the next look (a new turn, a resume). `record`: the message just delivered, which the new turn
   * answers: its deadline is known without reading it back (a read per turn on the PostgreSQL bus).
   */
  replan(record?: ArchiveRecord): void {
    this.at = 0;
    if (record) this.owed = { id: record.id, timeout_s: turnTimeout(record, this.p.config.turns.timeout_s) };
  }

  /** config.json reloaded (reload.ts): plan again, the owed timeout too; end now if a new limit is reached. */
  async reconfigured(): Promise<void> {
    this.at = 0;
    this.owed = { id: undefined, timeout_s: 0 };
    await this.finishIfDue();
  }

  // The message the current turn answers, and its reminder timeout. Undefined until the first look reads it: as
  // "none" (null, timeout 0) a holder owing the first message after a kick-off was never reminded.
  private owed: { id: string | null | undefined; timeout_s: number } = { id: undefined, timeout_s: 0 };

  /** The turn rules now: reminders follow the owed message's own deadline when it has one. */
  private async turnsNow() {
    const turns = this.p.config.turns;
    const id = this.p.bus.state().pending_reply_to;
    if (id !== this.owed.id)
      this.owed = { id, timeout_s: turnTimeout(id ? await this.p.bus.record(id) : null, turns.timeout_s) };
    return { ...turns, timeout_s: this.owed.timeout_s };
  }

  /** End the conversation by max_duration, remind a silent turn holder, or mark it stalled. */
  async conduct(): Promise<void> {
    await this.p.closing?.ask(); // a closing prompt its pane could not take at the finish
    // The conversation's clock: started_at and turn_started_at may come from another machine's.
    const now = this.p.bus.now();
    if (now < this.at) {
      // Not due yet; the wake for it may have given way to an earlier one, so ask again (the earliest wins).
      if (this.at !== Infinity) this.p.wakeIn(this.at - now + 5);
      return;
    }
    const turns = await this.turnsNow();
    const bus = this.p.bus;
    // Across machines (docs/protocol.md §10) the turn holder's machine keeps its clock: one reminder, one ending.
    // No timer here: the turn comes back with the other machine's NOTIFY, and the pass it wakes looks again.
    if (!isLocal(this.p.config, bus.state().current_turn)) return;
    const endsAt = durationEndsAt(bus.state(), turns);
    if (endsAt !== null && now >= endsAt) await this.finish('max_duration');
    const holder = bus.state().current_turn;
    // The holder has written (a message is waiting, e.g. for a missing pane, or for approval): not silent.
    const wrote =
      (await bus.queues()).some((q) => q.direction.from === holder && q.items.some((w) => w.ready)) ||
      (turns.moderated && (await bus.approvals()).some((a) => a.direction.from === holder));
    if (wrote) {
      // Not silent: look again in a second (the file may yet be withdrawn), no reminder meanwhile.
      this.at = now + 1000;
      this.p.wakeIn(1005);
      return;
    }
    const plan = nudgePlan(bus.state(), now, turns);
    if (plan.action === 'nudge') {
      const reply = bus.state().pending_reply_to;
      const text =
        `[baton] reminder ${plan.n}/${turns.max_nudges}: ${holder}, it is your turn` +
        (reply ? ` and ${reply} is waiting for your reply.` : ': the conversation waits for your first message.') +
        `\n${replyHint(this.p.config, holder)}`;
      // Not typed (pane unavailable: paneFor has scheduled the retry; a failed paste: the next rescan).
      if (await this.p.typeInto(holder, text)) return;
      await bus.update((s) => ({ ...s, nudges: plan.n }));
      this.p.log.info(`nudged ${holder} (${plan.n}/${turns.max_nudges}) about ${reply ?? 'the first message'}`);
      await bus.events.emit('nudged', { agent: holder, reply_to: reply, n: plan.n, max: turns.max_nudges });
    } else if (plan.action === 'stall') {
      const st = await bus.update((s) => ({ ...s, stalled: true }));
      this.p.log.warn(`${holder} stayed silent after ${turns.max_nudges} reminders: stalled`);
      await bus.events.emit('stalled', { agent: holder, reply_to: st.pending_reply_to, nudges: st.nudges ?? 0 });
    }
    // Look again when the next reminder or the duration limit is due (a delivery resets the clock).
    const later = bus.now();
    const next = nudgePlan(bus.state(), later, turns);
    const ats = [next.action === 'none' ? next.at : later, durationEndsAt(bus.state(), turns)];
    this.at = Math.min(...ats.map((x) => x ?? Infinity));
    if (this.at !== Infinity) this.p.wakeIn(Math.max(0, this.at - bus.now()) + 5);
  }

  /** Stop delivering: state.json says why, an event is logged, every pane gets a short notice. */
  async finish(reason: FinishReason, note?: string): Promise<void> {
    const noted = note ? { note } : {};
    const st = await this.p.bus.update((s) => ({ ...s, finished: { reason, at: isoAt(this.p.bus.now()), ...noted } }));
    this.at = 0;
    this.p.log.info(`the conversation has finished (${reason}${note ? `: ${note}` : ''})`);
    await this.p.bus.events.emit('finished', { reason, ...noted, message_counter: st.message_counter });
    const demoEnd = st.demo && !this.p.config.turns.max_turns ? ': the end of the demo' : '';
    const why = {
      max_turns: `it reached max_turns (${rulesFor(this.p.config.turns, st).max_turns}${demoEnd})`,
      stop_phrase: 'the stop phrase was said',
      max_duration: `it ran for max_duration_s (${this.p.config.turns.max_duration_s} s)`,
      ended: 'a person ended it',
      max_tokens: `its agents used max_tokens (${this.p.config.turns.max_tokens} tokens)`,
    }[reason];
    for (const agent of this.p.config.order) {
      // Not into a pane whose delivery still waits for its Enter: the pipeline's gate says why.
      const err = await this.p.typeInto(
        agent,
        `[baton] the conversation has finished: ${why}${note ? ` (${sanitize(note)})` : ''}. ` +
          'Nothing more will be delivered; please stop and wait.',
      );
      if (err) this.p.log.warn(`could not tell ${agent} the conversation finished: ${err}`);
    }
    await this.p.closing?.finished();
  }

  /** A delivery was stamped: does it end the conversation (stop phrase, max_turns)? */
  async afterDelivery(r: ArchiveRecord): Promise<void> {
    await this.p.closing?.delivered(r);
    const s = this.p.bus.state();
    const ends = !s.finished && endsWith(s, { from: r.sender, content: r.content }, rulesFor(this.p.config.turns, s));
    if (ends) await this.finish(ends);
    else await this.p.loop?.afterDelivery(r);
  }

  /**
   * A daemon killed between stamping a delivery and writing `finished` (stop phrase, max_turns): end the
   * conversation now. Only for a delivery of the current turn (a resume since then starts a new one).
   */
  async finishIfDue(): Promise<void> {
    const bus = this.p.bus;
    const s = bus.state();
    if (s.finished || this.p.underway.busy || !s.last_message_id || !s.turn_started_at) return;
    const last = await bus.record(s.last_message_id);
    if (!last?.delivered_at || last.delivered_at < s.turn_started_at) return;
    const ends = endsWith(s, { from: last.sender, content: last.content }, rulesFor(this.p.config.turns, s));
    if (ends) await this.finish(ends);
  }
}
