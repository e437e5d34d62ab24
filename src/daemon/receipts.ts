/**
 * What the agents' own hooks report (issue 16), read from their spool (terminal/hooks/spool.ts) once per
 * pass, oldest note first, each removed once handled:
 *
 * - a prompt (Claude Code's and Codex's UserPromptSubmit, Gemini's BeforeAgent — core/hook-payload.ts
 *   reads each CLI's payload): the model received a message. It is matched to the
 *   message baton typed by the ID in its header, compared with what was typed after the client's
 *   documented rewrites (core/receipt.ts), and recorded on the archive record: `received: {at, intact}`,
 *   `confirmed: "hook"`, and a `received` event. A receipt that comes before the record is stamped is
 *   kept until the stamp (courier.ts asks for it).
 * - the end of a turn (Stop; Gemini's AfterAgent): the agent is idle; under `reply: "auto"`/`"both"` its final reply becomes
 *   its message when it holds the turn and posted nothing since its message came (core/receipt.ts says
 *   when), never two for one turn.
 * - a permission dialog: the agent waits for a person.
 *
 * The agents' states go to `.hooks/agents.json` for status and the dashboard. A stamped delivery to an
 * agent with hooks whose receipt has not come within RECEIPT_BOUND_MS, while the agent is not busy with
 * something else, is reported once (`delivery_unconfirmed`), and may be typed again (unconfirmed.ts).
 */
import { FencedError, type DeliveryBus } from '../bus/bus.js';
import type { Config, Direction } from '../config/config.js';
import { sanitize } from '../core/compose.js';
import { autoReply, idsIn, isIntact, type Received } from '../core/receipt.js';
import { hasHooks, type HookNote } from '../core/hook-note.js';
import { factsOf } from '../core/hook-payload.js';
import { transcriptReply } from '../terminal/hooks/transcript.js';
import { decide, type Rules } from '../core/turns.js';
import type { Logger } from '../lib/log.js';
import type { FinishReason } from '../core/conversation.js';
import { Budget } from './budget.js';
import { readNotes, removeNote, spoolDir, writeAgentStates, type AgentStates } from '../terminal/hooks/spool.js';
import { watch, type FSWatcher } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { RECEIPT_BOUND_MS, Unconfirmed } from './unconfirmed.js';

/** How often the spools are listed when no watcher said anything (a missed event delays, never loses). */
const RESCAN_MS = 2000;

/** How often a hook note may fail to be handled before it is set aside. */
const MAX_TRIES = 3;

export type Post = (d: Direction, message: Record<string, unknown>) => Promise<string>;

export class Receipts {
  /** Receipts for records not yet stamped (the hook was faster than the screen). */
  private readonly early = new Map<string, Received>();
  /** Stamped deliveries whose receipt has not come yet. */
  private readonly unconfirmed: Unconfirmed;
  private readonly states: AgentStates = {};
  /** Per agent: the incoming message an automatic reply was written for. */
  private readonly answered = new Map<string, string>();
  private readonly watchers: FSWatcher[] = [];
  private readonly agents: string[];
  /** The messages each agent's prompt carried (its baton headers), by agent and prompt_id. */
  private readonly prompts = new Map<string, string[]>();
  /** Notes that failed to be handled, and how often (set aside after MAX_TRIES). */
  private readonly failures = new Map<string, number>();
  private readonly budget: Budget;
  /**
   * A spool may hold a note: set by the watcher, by a note left to retry, and every RESCAN_MS (the safety
   * net), so a pass that delivers does not list every agent's spool (issue 16 put it on every pass).
   */
  private dirty = true;
  private lookedAt = 0;

  constructor(
    private readonly config: Config,
    private readonly bus: DeliveryBus,
    private readonly rules: Rules,
    private readonly post: Post,
    private readonly log: Logger,
    private readonly control: {
      finish: (reason: FinishReason) => Promise<void>;
      wakeIn: (ms: number) => void;
      check: () => void;
    },
  ) {
    this.agents = config.order.filter(
      (a) => hasHooks(config.agents[a]!.kind) && config.agents[a]!.host === config.host,
    );
    this.unconfirmed = new Unconfirmed(this.agents);
    this.budget = new Budget(
      config,
      bus,
      log,
      (agent, p) => this.prompts.get(`${agent}\n${p}`)?.[0] ?? null,
      control.finish,
      control.wakeIn,
    );
  }

  /** Watch the spools (a hint: each pass looks anyway). */
  async watch(kick: () => void): Promise<void> {
    for (const a of this.agents) {
      const dir = spoolDir(this.config.messageDir, a);
      await mkdir(dir, { recursive: true });
      try {
        this.watchers.push(
          watch(dir, () => {
            this.dirty = true;
            kick();
          }).on('error', () => {}),
        );
      } catch {
        /* the pass looks on its own */
      }
    }
  }

  unwatch(): void {
    for (const w of this.watchers.splice(0)) w.close();
  }

  /** A receipt that came before the stamp, for whoever stamps it (the courier, a person's message) to record with it. */
  takeEarly(id: string): Received | undefined {
    const r = this.early.get(id);
    this.early.delete(id);
    return r;
  }

  /** A delivery was stamped: its receipt is expected (agents with hooks only). */
  stamped(id: string, agent: string, received: boolean): void {
    this.unconfirmed.stamped(id, agent, received);
  }

  /** A message whose receipt never came though the agent's hooks work: to check, and type again if lost. */
  suspect(): { id: string; agent: string } | undefined {
    return this.unconfirmed.next();
  }

  /** Handle every note waiting; true when one was handled (another pass may have work). */
  async run(): Promise<boolean> {
    let any = false;
    const now = performance.now();
    const look = this.dirty || now - this.lookedAt >= RESCAN_MS;
    if (look) {
      this.dirty = false; // before reading: a note written meanwhile sets it again
      this.lookedAt = now;
    }
    for (const agent of look ? this.agents : []) {
      const dir = spoolDir(this.config.messageDir, agent);
      for (const s of await readNotes(dir)) {
        if ('note' in s) {
          try {
            await this.handle(agent, s.note);
          } catch (err) {
            if (err instanceof FencedError) throw err; // the daemon stops or waits: the note stays
            // The note stays for the next pass; one that keeps failing is set aside, so delivery never stops on it.
            const n = (this.failures.get(s.name) ?? 0) + 1;
            this.failures.set(s.name, n);
            this.log.warn(
              `${agent}'s hook note ${s.name}: ${String(err)}${n >= MAX_TRIES ? '; set aside' : '; trying again'}`,
            );
            if (n < MAX_TRIES) {
              this.dirty = true;
              continue;
            }
          }
          this.failures.delete(s.name);
        } else this.log.warn(`${agent}'s hook spool: ${s.name} is not a hook note (${s.invalid}); removed`);
        await removeNote(dir, s.name);
        any = true;
      }
    }
    if (any)
      await writeAgentStates(this.config.messageDir, this.states).catch((err: unknown) =>
        this.log.warn(`cannot write the agents' states: ${String(err)}`),
      );
    await this.budget.run();
    await this.overdue();
    return any;
  }

  private async handle(agent: string, note: HookNote): Promise<void> {
    if (note.event === 'prompt') return this.prompt(agent, note);
    if (note.event === 'stop') return this.stop(agent, note);
    this.states[agent] = {
      state: 'permission',
      since: note.at,
      ...(typeof note.payload.tool_name === 'string' ? { detail: note.payload.tool_name } : {}),
    };
  }

  private async prompt(agent: string, note: HookNote): Promise<void> {
    const facts = factsOf(this.config.agents[agent]!.kind, note);
    const prompt = facts.prompt ?? '';
    const promptId = facts.turn ?? undefined;
    this.states[agent] = { state: 'busy', since: note.at, ...(promptId ? { prompt_id: promptId } : {}) };
    const ids = idsIn(prompt);
    // Codex gives a message steered into a running turn that turn's ID: the turn carries both.
    const key = `${agent}\n${promptId}`;
    if (promptId && ids.length) this.prompts.set(key, [...(this.prompts.get(key) ?? []), ...ids]);
    for (const id of ids) {
      const record = await this.bus.record(id);
      if (!record || record.receiver !== agent || record.received) continue;
      const received: Received = {
        at: note.at,
        intact: isIntact(id, sanitize(record.content), prompt),
        ...(promptId ? { prompt_id: promptId } : {}),
      };
      this.unconfirmed.received(id, agent);
      if (record.delivered_at) await this.bus.amend(id, { received, confirmed: 'hook' });
      else this.early.set(id, received);
      if (!received.intact)
        this.log.warn(`${id} → ${agent}: the prompt its model got does not hold the text baton typed`);
      await this.bus.events.emit('received', { id, agent, intact: received.intact });
    }
  }

  private async stop(agent: string, note: HookNote): Promise<void> {
    this.states[agent] = { state: 'idle', since: note.at };
    const kind = this.config.agents[agent]!.kind;
    const facts = factsOf(kind, note);
    // Token usage is read from Claude Code's transcript format only (core/tokens.ts).
    if (kind === 'claude') this.budget.ended(agent, facts.transcript, facts.turn);
    const mode = this.config.agents[agent]!.reply;
    if (mode === 'post') return;
    await this.bus.queues(); // the state as stored now (another machine may have moved the turn)
    const s = this.bus.state();
    const last = s.last_message_id ? await this.bus.record(s.last_message_id) : null;
    const opening = !s.last_message_id && s.message_counter === 0;
    const reply = facts.replyFrom === 'payload' ? facts.reply : await transcriptReply(facts.transcript);
    const promptId = facts.turn;
    // The messages the ended turn began with: by its ID where the CLI gives one, else from its prompt.
    const carried = promptId ? (this.prompts.get(`${agent}\n${promptId}`) ?? []) : idsIn(facts.prompt ?? '');
    const endsThatTurn = opening
      ? carried.some((id) => id.startsWith('user_'))
      : !!last && ((!!promptId && last.received?.prompt_id === promptId) || carried.includes(last.id));
    const plan = autoReply({
      mode,
      agent,
      holder: s.current_turn,
      lastMessage: opening ? 'opening' : last,
      waitingFromAgent: await this.bus.waitingFrom(agent),
      answered: this.answered.get(agent) ?? null,
      endsThatTurn,
      finished: Boolean(s.finished),
      paused: Boolean(s.paused),
      reply,
    });
    if (!plan.post) {
      if (mode === 'auto' && reply) this.log.info(`${agent}'s turn ended; not posted for it: ${plan.why}`);
      return;
    }
    const d = this.direction(agent, last?.sender ?? null);
    if (!d) return this.log.warn(`${agent}'s reply not posted: it may write to several agents (give it reply "post")`);
    this.control.check(); // a daemon that lost its lease posts nothing
    this.answered.set(agent, plan.replyTo ?? 'opening');
    await this.post(d, {
      timestamp: note.at,
      sender: agent,
      receiver: d.to,
      content: reply!,
      type: plan.replyTo ? 'response' : 'message',
      auto: true,
    });
    this.log.info(
      `${agent}'s final reply posted for it${plan.replyTo ? ` (reply to ${plan.replyTo})` : ' (it opens the conversation)'}`,
    );
    await this.bus.events.emit('auto_replied', { agent, to: d.to, reply_to: plan.replyTo });
  }

  /** The folder an automatic reply goes to: the one the turn rules allow now, back to the sender if several. */
  private direction(agent: string, sender: string | null): Direction | null {
    const allowed = this.config.directions.filter(
      (d) => d.from === agent && decide(this.bus.state(), d, this.rules).action === 'deliver',
    );
    return allowed.length === 1 ? allowed[0]! : (allowed.find((d) => d.to === sender) ?? null);
  }

  /** Report once each stamped delivery whose receipt is overdue while its agent is not busy. */
  private async overdue(): Promise<void> {
    for (const o of this.unconfirmed.due((agent) => this.states[agent]?.state === 'busy')) {
      this.log.warn(
        `${o.id} → ${o.agent}: stamped delivered, but its hook reported no prompt within ${RECEIPT_BOUND_MS / 1000} s${o.suspect ? '; checking its pane' : ''}`,
      );
      await this.bus.events.emit('delivery_unconfirmed', { id: o.id, agent: o.agent, after_ms: o.afterMs });
    }
  }
}
