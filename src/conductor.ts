/**
 * Conversation control in the daemon's loop (SPEC §9): ending by max_duration (max_turns and the stop
 * phrase end it after a delivery, through finish()), reminding a silent turn holder, marking it
 * stalled, and telling every pane when it is over. The rules are the pure functions of conversation.ts;
 * this is their clock and their typing.
 */
import { replyHint, sanitize } from './compose.js';
import { durationEndsAt, nudgePlan, rulesFor, type FinishReason } from './conversation.js';
import type { Stage, Steering } from './steering.js';

export class Conductor {
  /** When control next needs a look (ms since the epoch); Infinity: never; 0: now. */
  private at = 0;

  constructor(
    private readonly stage: Stage,
    private readonly steering: Steering,
  ) {}

  /** Plan again at the next look (a new turn, a resume). */
  replan(): void {
    this.at = 0;
  }

  /** End the conversation by max_duration, remind a silent turn holder, or mark it stalled. */
  async conduct(): Promise<void> {
    const now = Date.now();
    if (now < this.at) {
      // Not due yet; the wake for it may have given way to an earlier one, so ask again (the earliest wins).
      if (this.at !== Infinity) this.stage.wakeIn(this.at - now + 5);
      return;
    }
    const turns = this.stage.config.turns;
    const endsAt = durationEndsAt(this.stage.state, turns);
    if (endsAt !== null && now >= endsAt) await this.finish('max_duration');
    const holder = this.stage.state.current_turn;
    // The holder has written (a file is waiting, e.g. for a missing pane, or pending approval): not silent.
    const wrote =
      this.stage.folders.some((f) => f.direction.from === holder && [...f.entries.values()].some((e) => e.result?.kind === 'valid')) ||
      (this.stage.config.turns.moderated && (await this.steering.pendingFiles()).some((p) => p.folder.direction.from === holder));
    if (wrote) {
      // Not silent: look again in a second (the file may yet be withdrawn), no reminder meanwhile.
      this.at = now + 1000;
      this.stage.wakeIn(1005);
      return;
    }
    const plan = nudgePlan(this.stage.state, now, turns);
    if (plan.action === 'nudge') {
      const reply = this.stage.state.pending_reply_to;
      const text =
        `[baton] reminder ${plan.n}/${turns.max_nudges}: ${holder}, it is your turn` +
        (reply ? ` and ${reply} is waiting for your reply.` : ': the conversation waits for your first message.') +
        `\n${replyHint(this.stage.config, holder)}`;
      // Not typed (pane unavailable: paneFor has scheduled the retry; a failed paste: the next rescan).
      if (await this.stage.typeInto(holder, text)) return;
      await this.stage.saveState({ ...this.stage.state, nudges: plan.n });
      this.stage.log.info(`nudged ${holder} (${plan.n}/${turns.max_nudges}) about ${reply ?? 'the first message'}`);
      await this.stage.events.emit('nudged', { agent: holder, reply_to: reply, n: plan.n, max: turns.max_nudges });
    } else if (plan.action === 'stall') {
      await this.stage.saveState({ ...this.stage.state, stalled: true });
      this.stage.log.warn(`${holder} stayed silent after ${turns.max_nudges} reminders: stalled`);
      await this.stage.events.emit('stalled', { agent: holder, reply_to: this.stage.state.pending_reply_to, nudges: this.stage.state.nudges ?? 0 });
    }
    // Look again when the next reminder or the duration limit is due (a delivery resets the clock).
    const next = nudgePlan(this.stage.state, Date.now(), turns);
    const ats = [next.action === 'none' ? next.at : Date.now(), durationEndsAt(this.stage.state, turns)].filter((x): x is number => x !== null);
    this.at = ats.length ? Math.min(...ats) : Infinity;
    if (this.at !== Infinity) this.stage.wakeIn(Math.max(0, this.at - Date.now()) + 5);
  }

  /** Stop delivering: state.json says why, an event is logged, every pane gets a short notice. */
  async finish(reason: FinishReason, note?: string): Promise<void> {
    await this.stage.saveState({ ...this.stage.state, finished: { reason, at: new Date().toISOString(), ...(note ? { note } : {}) } });
    this.at = 0;
    this.stage.log.info(`the conversation has finished (${reason}${note ? `: ${note}` : ''})`);
    await this.stage.events.emit('finished', { reason, ...(note ? { note } : {}), message_counter: this.stage.state.message_counter });
    const why = { max_turns: `it reached max_turns (${rulesFor(this.stage.config.turns, this.stage.state).max_turns}${this.stage.state.demo && !this.stage.config.turns.max_turns ? ': the end of the demo' : ''})`, stop_phrase: 'the stop phrase was said', max_duration: `it ran for max_duration_s (${this.stage.config.turns.max_duration_s} s)`, ended: 'a person ended it' }[reason];
    for (const agent of this.stage.config.order) {
      if (agent === this.stage.deliveringTo) {
        this.stage.log.warn(`${agent} is not told the conversation finished: a message to it is still being delivered`);
        continue;
      }
      const err = await this.stage.typeInto(agent, `[baton] the conversation has finished: ${why}${note ? ` (${sanitize(note)})` : ''}. Nothing more will be delivered; please stop and wait.`);
      if (err) this.stage.log.warn(`could not tell ${agent} the conversation finished: ${err}`);
    }
  }
}
