/**
 * The end of an agent's turn, as its hook reports it (Stop; Gemini's AfterAgent): its tokens and cost are counted
 * (budget.ts), and under `reply: "auto"`/`"both"` its final reply becomes its message when it holds the turn and
 * posted nothing since its message came (core/receipt.ts says when), never two for one turn.
 */
import type { Clock, Events, Posted, Queues, Records, TurnState } from '../bus/bus.js';
import type { Direction } from '../config/config.js';
import type { HookNote } from '../core/hook-note.js';
import { factsOf } from '../core/hook-payload.js';
import { autoReply, idsIn } from '../core/receipt.js';
import { remindedOf } from '../core/restart.js';
import { decide } from '../core/turns.js';
import type { HookIntake } from '../terminal/hooks/intake.js';
import type { Budget } from './budget.js';
import type { Uses } from './context.js';

export type Post = (d: Direction, message: Record<string, unknown>) => Promise<Posted>;

/** The messages a prompt began a turn with: their headers (`ids`), and the one a restart reminder names. */
export const carriedBy = (prompt: string, ids = idsIn(prompt)): string[] => {
  const reminded = remindedOf(prompt);
  return reminded && !ids.includes(reminded) ? [...ids, reminded] : ids;
};

export interface TurnEndsParts extends Uses<'config' | 'log' | 'rules'> {
  bus: Queues & TurnState & Records & Events & Clock;
  intake: HookIntake;
  /** How a reply is stored as the agent's message (the bus's post, as `baton post` does). */
  post: Post;
  budget: Budget;
  /** Throws when the lease is lost: a daemon that lost it posts nothing. */
  checkLease(): void;
  /** The messages a turn (by its ID) began with, from the receipts of its prompts. */
  carried(agent: string, promptId: string): string[];
}

export class TurnEnds {
  /** Per agent: the incoming message an automatic reply was written for. */
  private readonly answered = new Map<string, string>();

  constructor(private readonly p: TurnEndsParts) {}

  async ended(agent: string, note: HookNote): Promise<void> {
    const { config, bus } = this.p;
    const kind = config.agents[agent]!.kind;
    const facts = factsOf(kind, note);
    const promptId = facts.turn;
    // The messages the ended turn began with: by its ID where the CLI gives one, else from its prompt.
    const carried = promptId ? this.p.carried(agent, promptId) : carriedBy(facts.prompt ?? '');
    // Its tokens, from the client's own record of the turn: keyed by the turn's ID, Gemini's by its prompt.
    this.p.budget.ended(agent, {
      kind,
      transcript: facts.transcript,
      turn: kind === 'gemini' ? facts.prompt : promptId,
      model: note.payload.model,
      opened: carried[0] ?? null,
    });
    const mode = config.agents[agent]!.reply;
    if (mode === 'post') return;
    await bus.queues(); // the state as stored now (another machine may have moved the turn)
    const s = bus.state();
    const last = s.last_message_id ? await bus.record(s.last_message_id) : null;
    const opening = !s.last_message_id && s.message_counter === 0;
    const reply =
      facts.replyFrom === 'payload' ? facts.reply : await this.p.intake.transcriptReply(agent, facts.transcript);
    const endsThatTurn = opening
      ? carried.some((id) => id.startsWith('user_'))
      : !!last && ((!!promptId && last.received?.prompt_id === promptId) || carried.includes(last.id));
    const plan = autoReply({
      mode,
      agent,
      holder: s.current_turn,
      lastMessage: opening ? 'opening' : last,
      waitingFromAgent: await bus.waitingFrom(agent),
      answered: this.answered.get(agent) ?? null,
      endsThatTurn,
      finished: Boolean(s.finished),
      paused: Boolean(s.paused),
      reply,
    });
    if (!plan.post) {
      if (mode === 'auto' && reply) this.p.log.info(`${agent}'s turn ended; not posted for it: ${plan.why}`);
      return;
    }
    const d = this.direction(agent, last?.sender ?? null);
    if (!d)
      return this.p.log.warn(`${agent}'s reply not posted: it may write to several agents (give it reply "post")`);
    this.p.checkLease();
    this.answered.set(agent, plan.replyTo ?? 'opening');
    const posted = await this.p.post(d, {
      timestamp: note.at,
      sender: agent,
      receiver: d.to,
      content: reply!,
      type: plan.replyTo ? 'response' : 'message',
      auto: true,
    });
    if (posted.kind === 'refused')
      return this.p.log.warn(`${agent}'s final reply not posted: ${posted.reason} (its agent is told)`);
    if (posted.kind === 'uncertain') return this.p.log.warn(`${agent}'s final reply: ${posted.reason}`);
    this.p.log.info(
      `${agent}'s final reply posted for it${plan.replyTo ? ` (reply to ${plan.replyTo})` : ' (it opens the conversation)'}`,
    );
    await bus.events.emit('auto_replied', { agent, to: d.to, reply_to: plan.replyTo });
  }

  /** The folder an automatic reply goes to: the one the turn rules allow now, back to the sender if several. */
  private direction(agent: string, sender: string | null): Direction | null {
    // As if not paused: a reply posted while paused waits there for `baton resume` (core/receipt.ts autoReply).
    const state = { ...this.p.bus.state(), paused: null };
    const allowed = this.p.config.directions.filter(
      (d) => d.from === agent && decide(state, d, this.p.rules).action === 'deliver',
    );
    return allowed.length === 1 ? allowed[0]! : (allowed.find((d) => d.to === sender) ?? null);
  }
}
