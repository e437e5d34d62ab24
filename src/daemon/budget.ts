/**
 * Token and cost budgets in the daemon (the rules: core/tokens.ts, core/pricing.ts, core/budget.ts). When a turn
 * ends (Stop; Gemini's AfterAgent) its usage is read from the client's own record (Claude Code's transcript, Codex's
 * session log, Gemini CLI's chat file) once complete there, or after COMPLETE_WAIT_MS; recorded on the message that
 * opened the turn (`turn_tokens`, `turn_cost`) and in the state's totals; the conversation ends at `turns.max_tokens`
 * and pauses at a cost budget with a `budget` event. A model with no price is said once. Nothing waits inside a
 * pass: a turn not complete yet is looked at again later.
 */
import { isoAt, type Clock, type Events, type Records, type TurnState } from '../bus/bus.js';
import { addCost, dollars, reached, type Reached } from '../core/budget.js';
import type { FinishReason } from '../core/conversation.js';
import { addTurnCost, priceTable, turnCost } from '../core/pricing.js';
import { addUsage, byModel, claudeTurn, totalOf, type ModelUsage, type TurnRead, usageOf } from '../core/tokens.js';
import { codexTurn } from '../core/tokens-codex.js';
import { geminiTurn } from '../core/tokens-gemini.js';
import type { Transcript } from '../terminal/hooks/intake.js';
import type { Uses } from './context.js';

/** How long a turn's record may take to be complete (Claude Code's turn_duration: measured 62–150 ms). */
export const COMPLETE_WAIT_MS = 3000;
/** How long a prompt may take to show in the transcript at all before the turn is left uncounted. */
export const GIVE_UP_MS = 15_000;

/** A turn that ended, as its hook reported it. */
export interface Ended {
  /** The agent's kind: whose record format to read. */
  kind: string;
  /** The client's record of the session (the hook's `transcript_path`). */
  transcript: unknown;
  /** The turn's key there: Claude Code's `prompt_id`, Codex's `turn_id`, Gemini's prompt text. */
  turn: unknown;
  /** The model the hook named (Codex's payloads carry it), used when the record names none. */
  model?: unknown;
  /** The message that opened the turn (its receipt carried it), or null: a prompt that was no message of baton's. */
  opened: string | null;
}

interface Turn {
  agent: string;
  kind: string;
  path: string;
  key: string;
  model: string | null;
  opened: string | null;
  since: number;
}

/** How each client's record is read for one turn. */
const READERS: Record<string, (entries: readonly unknown[], t: Turn) => TurnRead> = {
  claude: (e, t) => claudeTurn(e, t.key),
  codex: (e, t) => codexTurn(e, t.key, t.model),
  gemini: (e, t) => geminiTurn(e, t.key),
};

export interface BudgetParts extends Uses<'config' | 'log' | 'wakeIn'> {
  bus: Records & TurnState & Events & Clock;
  /** The agent's transcript, read on from where the last look ended (terminal/hooks/intake.ts). */
  transcript(agent: string, path: string): Transcript;
  finish(reason: FinishReason): Promise<void>;
}

export class Budget {
  private readonly turns: Turn[] = [];
  /** The transcripts of the turns waiting to be counted, read on from where the last look ended. */
  private readonly tails = new Map<string, Transcript>();
  /** Models said to have no price (once each). */
  private readonly saidUnpriced = new Set<string>();

  constructor(private readonly p: BudgetParts) {}

  /** A turn ended: count it once its client's record has it. */
  ended(agent: string, e: Ended): void {
    const { transcript: path, turn: key } = e;
    if (!(e.kind in READERS) || typeof path !== 'string' || typeof key !== 'string' || !path || !key) return;
    const model = typeof e.model === 'string' && e.model ? e.model : null;
    this.turns.push({ agent, kind: e.kind, path, key, model, opened: e.opened, since: performance.now() });
    this.p.wakeIn(200);
  }

  async run(): Promise<void> {
    for (const t of [...this.turns]) {
      const age = performance.now() - t.since;
      const key = `${t.agent}\n${t.path}`;
      let tail = this.tails.get(key);
      if (!tail) this.tails.set(key, (tail = this.p.transcript(t.agent, t.path)));
      const { complete, parts } = READERS[t.kind]!(await tail.read(), t);
      if (tail.refused) {
        // The path came from the agent's own note: said in baton's words, never the note's.
        this.turns.splice(this.turns.indexOf(t), 1);
        this.p.log.warn(`${t.agent}'s transcript is not read (${tail.refused}): the turn's tokens are not counted`);
        continue;
      }
      const again = !parts && age < GIVE_UP_MS ? 250 : parts && !complete && age < COMPLETE_WAIT_MS ? 100 : 0;
      if (again) {
        this.p.wakeIn(again);
        continue;
      }
      this.turns.splice(this.turns.indexOf(t), 1);
      if (!parts) {
        this.p.log.warn(`${t.agent}'s turn is not in its transcript: its tokens are not counted`);
        continue;
      }
      await this.count(t, parts);
    }
    for (const key of this.tails.keys())
      if (!this.turns.some((t) => `${t.agent}\n${t.path}` === key)) this.tails.delete(key);
  }

  private async count(t: Turn, parts: ModelUsage[]): Promise<void> {
    const { config, bus } = this.p;
    const usage = usageOf(parts);
    const cost = turnCost(byModel(parts), priceTable(config.pricing));
    for (const m of cost.unpriced.filter((m) => !this.saidUnpriced.has(m))) {
      this.saidUnpriced.add(m);
      this.p.log.warn(
        `no price for model ${m} (${t.agent}): its tokens are counted, its cost is not; give it one under "pricing" in config.json`,
      );
    }
    if (t.opened) {
      // A message may open two turns (its agent started again and reminded of it): the record has both.
      const was = await bus.record(t.opened);
      await bus.amend(t.opened, {
        turn_tokens: was?.turn_tokens ? addUsage(was.turn_tokens, usage) : usage,
        turn_cost: was?.turn_cost ? addTurnCost(was.turn_cost, cost) : cost,
      });
    }
    const s = await bus.update((st) => {
      const by = { ...(st.tokens?.by_agent ?? {}) };
      by[t.agent] = (by[t.agent] ?? 0) + totalOf(usage);
      return {
        ...st,
        tokens: { total: (st.tokens?.total ?? 0) + totalOf(usage), by_agent: by },
        cost: addCost(st.cost, t.agent, cost),
      };
    });
    const max = config.turns.max_tokens;
    if (max > 0 && !s.finished && (s.tokens?.total ?? 0) >= max) return this.p.finish('max_tokens');
    // Only a turn that cost something reaches a budget: a resume never re-pauses on the same spent sum.
    if (!cost.usd || s.finished || s.paused || !s.cost) return;
    const budgets = {
      conversation: config.turns.max_cost_usd,
      agents: Object.fromEntries(config.order.map((a) => [a, config.agents[a]!.maxCostUsd])),
      raised: s.raised,
    };
    const r = reached(s.cost, t.agent, budgets);
    if (r) await this.pause(r);
  }

  /** A budget reached: the conversation pauses (never ends), a `budget` event says which and how much. */
  private async pause(r: Reached): Promise<void> {
    const { bus } = this.p;
    await bus.update((s) => (s.paused ? s : { ...s, paused: { at: isoAt(bus.now()), reason: 'budget', ...r } }));
    const whose = r.agent ? `${r.agent}'s turns` : 'its agents';
    this.p.log.warn(
      `paused: ${whose} cost ${dollars(r.spent_usd)}, the budget ${r.budget} is ${dollars(r.max_usd)}; ` +
        '"baton resume" goes on (one more turn), "baton resume --budget USD" raises it',
    );
    await bus.events.emit('budget', { ...r });
  }
}
