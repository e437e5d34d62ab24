/**
 * Token budgets in the daemon (core/tokens.ts has the rules). When an agent's turn ends (its
 * Stop hook), the turn's usage is read from its transcript — once the turn's record there is complete, or
 * after COMPLETE_WAIT_MS with what is there — then recorded on the message that opened the turn
 * (`turn_tokens`), added to the state's totals, and the conversation is ended at `turns.max_tokens`.
 * Nothing here waits inside a pass: a turn not complete yet is looked at again at the next pass.
 */
import type { Records, TurnState } from '../bus/bus.js';
import type { Config } from '../config/config.js';
import type { FinishReason } from '../core/conversation.js';
import { totalOf, turnUsage, type Usage } from '../core/tokens.js';
import type { Logger } from '../lib/log.js';
import type { Transcript } from '../terminal/hooks/intake.js';

/** How long a turn's transcript may take to show its turn_duration record (measured: 62–150 ms). */
export const COMPLETE_WAIT_MS = 3000;
/** How long a prompt may take to show in the transcript at all before the turn is left uncounted. */
export const GIVE_UP_MS = 15_000;

interface Turn {
  agent: string;
  path: string;
  promptId: string;
  since: number;
}

export interface BudgetParts {
  config: Config;
  bus: Records & TurnState;
  log: Logger;
  /** The agent's transcript, read on from where the last look ended (terminal/hooks/intake.ts). */
  transcript(agent: string, path: string): Transcript;
  /** The message whose receipt carried this prompt (null: a prompt that was no message of baton's). */
  messageOf(agent: string, promptId: string): string | null;
  finish(reason: FinishReason): Promise<void>;
  wakeIn(ms: number): void;
}

export class Budget {
  private readonly turns: Turn[] = [];
  /** The transcripts of the turns waiting to be counted, read on from where the last look ended. */
  private readonly tails = new Map<string, Transcript>();

  constructor(private readonly p: BudgetParts) {}

  /** A turn ended (a Stop hook): count it once its transcript has it. */
  ended(agent: string, path: unknown, promptId: unknown): void {
    if (typeof path !== 'string' || typeof promptId !== 'string' || !path || !promptId) return;
    this.turns.push({ agent, path, promptId, since: performance.now() });
    this.p.wakeIn(200);
  }

  async run(): Promise<void> {
    for (const t of [...this.turns]) {
      const age = performance.now() - t.since;
      const key = `${t.agent}\n${t.path}`;
      let tail = this.tails.get(key);
      if (!tail) this.tails.set(key, (tail = this.p.transcript(t.agent, t.path)));
      const { complete, usage } = turnUsage(await tail.read(), t.promptId);
      if (tail.refused) {
        // The path came from the agent's own note: said in baton's words, never the note's.
        this.turns.splice(this.turns.indexOf(t), 1);
        this.p.log.warn(`${t.agent}'s transcript is not read (${tail.refused}): the turn's tokens are not counted`);
        continue;
      }
      if (!usage && age < GIVE_UP_MS) {
        this.p.wakeIn(250);
        continue;
      }
      if (usage && !complete && age < COMPLETE_WAIT_MS) {
        this.p.wakeIn(100);
        continue;
      }
      this.turns.splice(this.turns.indexOf(t), 1);
      if (!usage) {
        this.p.log.warn(`${t.agent}'s turn is not in its transcript: its tokens are not counted`);
        continue;
      }
      await this.count(t, usage);
    }
    for (const key of this.tails.keys())
      if (!this.turns.some((t) => `${t.agent}\n${t.path}` === key)) this.tails.delete(key);
  }

  private async count(t: Turn, usage: Usage): Promise<void> {
    const id = this.p.messageOf(t.agent, t.promptId);
    if (id) await this.p.bus.amend(id, { turn_tokens: usage });
    const s = await this.p.bus.update((st) => {
      const by = { ...(st.tokens?.by_agent ?? {}) };
      by[t.agent] = (by[t.agent] ?? 0) + totalOf(usage);
      return { ...st, tokens: { total: (st.tokens?.total ?? 0) + totalOf(usage), by_agent: by } };
    });
    const max = this.p.config.turns.max_tokens;
    if (max > 0 && !s.finished && (s.tokens?.total ?? 0) >= max) await this.p.finish('max_tokens');
  }
}
