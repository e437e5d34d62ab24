/**
 * What the agents' own hooks report, read from their spool once per pass (through a port, terminal/hooks/intake.ts:
 * no file is touched here), oldest note first, each removed once handled:
 * - a prompt (UserPromptSubmit; Gemini's BeforeAgent; core/hook-payload.ts): the model received a message, matched
 *   by its header ID, compared with what was typed after the client's documented rewrites (core/receipt.ts), and
 *   recorded (`received: {at, intact}`, `confirmed: "hook"`, a `received` event). One that comes before the stamp
 *   is kept for it (courier.ts asks for it).
 * - the end of a turn (Stop; Gemini's AfterAgent): idle, tokens counted, its final reply maybe posted (turn-ends.ts).
 * - a permission dialog: the agent waits for a person. With each: the client's session ID (sessions.ts).
 * States go to `.hooks/agents.json`. A stamped delivery with no receipt within RECEIPT_BOUND_MS while its agent is
 * not busy is reported once (`delivery_unconfirmed`), and may be typed again (unconfirmed.ts).
 */
import { FencedError, type Clock, type Events, type Queues, type Records, type TurnState } from '../bus/bus.js';
import { sanitize } from '../core/compose.js';
import type { FinishReason } from '../core/conversation.js';
import { hasHooks, type HookNote } from '../core/hook-note.js';
import { factsOf } from '../core/hook-payload.js';
import { dialogFromHook } from '../core/dialog-hooks.js';
import { genuineIds, holdsTyped, idsIn, isIntact, type Received } from '../core/receipt.js';
import type { ArchiveRecord } from '../core/record.js';
import type { HookIntake } from '../terminal/hooks/intake.js';
import { type AgentStates, noteLabel } from '../terminal/hooks/spool.js';
import { Budget } from './budget.js';
import type { Dialogs } from './dialogs.js';
import { SessionKeeper } from './sessions.js';
import { carriedBy, type Post, TurnEnds } from './turn-ends.js';
import { RECEIPT_BOUND_MS, Unconfirmed } from './unconfirmed.js';
import { timing } from '../lib/timing.js';
import type { Uses } from './context.js';

/** How often the spools are listed when no watcher said anything (a missed event delays, never loses). */
const RESCAN_MS = timing.receiptRescanMs;

/** How often a hook note may fail to be handled before it is set aside. */
const MAX_TRIES = 3;

export interface ReceiptsParts extends Uses<'config' | 'log' | 'rules' | 'wakeIn'> {
  /** What receipts write, and what turn ends (turn-ends.ts) and the budget (budget.ts) use. */
  bus: Records & TurnState & Queues & Events & Clock;
  intake: HookIntake;
  /** Who waits at a dialog (dialogs.ts): every note goes there too. */
  dialogs?: Pick<Dialogs, 'note' | 'current'>;
  post: Post;
  finish(reason: FinishReason): Promise<void>;
  /** Throws when the lease is lost. */
  checkLease(): void;
}

export class Receipts {
  /** Receipts for records not yet stamped (the hook was faster than the screen). */
  private readonly early = new Map<string, Received>();
  /** The text last pasted for each message not yet received (its catch-up included), newest last. */
  private readonly texts = new Map<string, string>();
  /** Stamped deliveries whose receipt has not come yet. */
  private readonly unconfirmed: Unconfirmed;
  private readonly states: AgentStates = {};
  private readonly agents: string[];
  /** The messages each agent's prompt carried (its baton headers), by agent and prompt_id. */
  private readonly prompts = new Map<string, string[]>();
  /** Notes that failed to be handled, and how often (set aside after MAX_TRIES). */
  private readonly failures = new Map<string, number>();
  private readonly turnEnds: TurnEnds;
  private readonly budget: Budget;
  /** Each agent's client session, kept in the state for `baton up` to resume (sessions.ts). */
  private readonly sessions: SessionKeeper;
  /** A spool may hold a note (watcher, a note to retry; RESCAN_MS as safety net): no readdir per agent per pass. */
  private dirty = true;
  private lookedAt = 0;

  constructor(private readonly p: ReceiptsParts) {
    this.agents = p.config.order.filter(
      (a) => hasHooks(p.config.agents[a]!.kind) && p.config.agents[a]!.host === p.config.host,
    );
    this.unconfirmed = new Unconfirmed(this.agents);
    this.budget = new Budget({ ...p, transcript: (agent, path) => p.intake.transcript(agent, path) });
    this.sessions = new SessionKeeper({ config: p.config, bus: p.bus, log: p.log });
    this.turnEnds = new TurnEnds({ ...p, budget: this.budget, carried: (a, id) => this.carried(a, id) });
  }

  /** Watch the spools (a hint: each pass looks anyway). */
  async watch(kick: () => void): Promise<void> {
    for (const a of this.agents) {
      await this.p.intake.ensure(a);
      this.p.intake.watch(a, () => {
        this.dirty = true;
        kick();
      });
    }
  }

  unwatch(): void {
    this.p.intake.unwatch();
  }

  /** A receipt that came before the stamp, for whoever stamps it (the courier, a person's message) to record with it. */
  takeEarly(id: string): Received | undefined {
    const r = this.early.get(id);
    this.early.delete(id);
    return r;
  }

  /** The text pasted for a message: its receipt is compared with all of it (kept for the last 64). */
  typed(id: string, text: string): void {
    this.texts.delete(id);
    this.texts.set(id, text);
    if (this.texts.size > 64) this.texts.delete(this.texts.keys().next().value!);
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
      for (const s of await this.p.intake.notes(agent)) {
        if ('note' in s) {
          try {
            await this.handle(agent, s.note);
          } catch (err) {
            if (err instanceof FencedError) throw err; // the daemon stops or waits: the note stays
            // The note stays for the next pass; one that keeps failing is set aside, so delivery never stops on it.
            const n = (this.failures.get(s.name) ?? 0) + 1;
            this.failures.set(s.name, n);
            this.p.log.warn(
              `${agent}'s hook note ${s.name}: ${String(err)}${n >= MAX_TRIES ? '; set aside' : '; trying again'}`,
            );
            if (n < MAX_TRIES) {
              this.dirty = true;
              continue;
            }
          }
          this.failures.delete(s.name);
        } else
          this.p.log.warn(`${agent}'s hook spool: ${noteLabel(s.name)} is not a hook note (${s.invalid}); removed`);
        await this.p.intake.take(agent, s.name);
        any = true;
      }
    }
    if (this.settle()) any = true;
    if (any)
      await this.p.intake
        .saveStates(this.states)
        .catch((err: unknown) => this.p.log.warn(`cannot write the agents' states: ${String(err)}`));
    await this.budget.run();
    await this.overdue();
    return any;
  }

  private carried(agent: string, promptId: string): string[] {
    return this.prompts.get(`${agent}\n${promptId}`) ?? [];
  }

  /**
   * An agent shown waiting for a permission whose dialog has closed with no hook (No and Esc fire none; its
   * screen showed it, dialogs.ts): idle again — its turn ended there. True when a state changed.
   */
  private settle(): boolean {
    let changed = false;
    for (const [agent, s] of Object.entries(this.states)) {
      if (s.state !== 'permission' || !this.p.dialogs || this.p.dialogs.current(agent)) continue;
      this.states[agent] = { state: 'idle', since: new Date().toISOString() };
      changed = true;
    }
    return changed;
  }

  private async handle(agent: string, note: HookNote): Promise<void> {
    await this.sessions.saw(agent, note);
    this.p.dialogs?.note(agent, note);
    if (note.event === 'prompt') return this.prompt(agent, note);
    if (note.event === 'stop') {
      this.states[agent] = { state: 'idle', since: note.at };
      return this.turnEnds.ended(agent, note);
    }
    // Its tool ran: the dialog (if it had one) was answered, and the turn goes on.
    if (note.event === 'ran') {
      this.states[agent] = { state: 'busy', since: note.at };
      return;
    }
    // A notification of another kind (Claude Code's idle reminder) is no dialog.
    if (!dialogFromHook(this.p.config.agents[agent]!.kind, note)) return;
    this.states[agent] = {
      state: 'permission',
      since: note.at,
      ...(typeof note.payload.tool_name === 'string' ? { detail: note.payload.tool_name } : {}),
    };
  }

  private async prompt(agent: string, note: HookNote): Promise<void> {
    const facts = factsOf(this.p.config.agents[agent]!.kind, note);
    const prompt = facts.prompt ?? '';
    const promptId = facts.turn ?? undefined;
    this.states[agent] = { state: 'busy', since: note.at, ...(promptId ? { prompt_id: promptId } : {}) };
    const records = new Map<string, ArchiveRecord | null>();
    for (const id of new Set(idsIn(prompt))) records.set(id, await this.p.bus.record(id));
    const ids = genuineIds(prompt, (id) => {
      const c = records.get(id)?.content;
      return c === undefined ? undefined : sanitize(c);
    });
    // Codex gives a message steered into a running turn that turn's ID: the turn carries both. A restart
    // reminder's turn answers the message it names (restarted.ts): carried, though no receipt of it.
    const key = `${agent}\n${promptId}`;
    const carried = carriedBy(prompt, ids);
    if (promptId && carried.length) this.prompts.set(key, [...(this.prompts.get(key) ?? []), ...carried]);
    for (const id of ids) {
      const record = records.get(id);
      if (record?.receiver === 'all') {
        await this.noteReceived(agent, record, note.at, prompt);
        continue;
      }
      if (!record || record.receiver !== agent || record.received) continue;
      // What was typed, when this daemon typed it (a catch-up with it); else the content after the header.
      const typed = this.texts.get(id);
      this.texts.delete(id);
      const received: Received = {
        at: note.at,
        intact: typed !== undefined ? holdsTyped(typed, prompt) : isIntact(id, sanitize(record.content), prompt),
        ...(promptId ? { prompt_id: promptId } : {}),
      };
      this.unconfirmed.received(id, agent);
      if (record.delivered_at) await this.p.bus.amend(id, { received, confirmed: 'hook' });
      else this.early.set(id, received);
      if (!received.intact)
        this.p.log.warn(`${id} → ${agent}: the prompt its model got does not hold the text baton typed`);
      await this.p.bus.events.emit('received', { id, agent, intact: received.intact });
    }
  }

  /** A person's note to all (notes.ts): the receipt goes on this agent's delivery of it, once. */
  private async noteReceived(agent: string, r: ArchiveRecord, at: string, prompt: string): Promise<void> {
    const mine = r.deliveries?.[agent];
    if (!mine || mine.received) return;
    const received = { at, intact: isIntact(r.id, sanitize(r.content), prompt) };
    await this.p.bus.amend(r.id, { deliveries: { [agent]: { ...mine, received } } });
    await this.p.bus.events.emit('received', { id: r.id, agent, intact: received.intact });
  }

  /** Report once each stamped delivery whose receipt is overdue while its agent is not busy. */
  private async overdue(): Promise<void> {
    for (const o of this.unconfirmed.due((agent) => this.states[agent]?.state === 'busy')) {
      this.p.log.warn(
        `${o.id} → ${o.agent}: stamped delivered, but its hook reported no prompt within ${RECEIPT_BOUND_MS / 1000} s` +
          (o.suspect ? '; checking its pane' : ''),
      );
      await this.p.bus.events.emit('delivery_unconfirmed', { id: o.id, agent: o.agent, after_ms: o.afterMs });
    }
  }
}
