/**
 * The closing turn (docs/protocol.md §12; texts: core/outcome.ts). When a conversation finishes and `turns.closing`
 * names an agent, it is asked once for the outcome; its answer (type `outcome`, the one message a finished
 * conversation still takes: core/turns.ts) is archived and written to `message_dir/OUTCOME.md`. A prompt its pane
 * could not take is typed at a later look; a resume clears the closing, so the next finish asks again.
 */
import { join } from 'node:path';
import { isoAt, type Clock, type Events, type TurnState } from '../bus/bus.js';
import { closingPrompt, OUTCOME_FILE, outcomeFile } from '../core/outcome.js';
import type { ArchiveRecord } from '../core/record.js';
import { expectedReceiver } from '../core/turns.js';
import { writeAtomic } from '../lib/fsx.js';
import type { Uses } from './context.js';

export interface ClosingParts extends Uses<'config' | 'log'> {
  bus: TurnState & Events & Clock;
  /** Type text of baton's own into an agent's pane (pipeline.ts). Null when typed, else why not. */
  typeInto(agent: string, text: string): Promise<string | null>;
}

export class ClosingTurn {
  /** The last reason the prompt could not be typed: said once, not at every look. */
  private lastError: string | null = null;

  constructor(private readonly p: ClosingParts) {}

  /** The conversation has just finished: ask the closing agent, once per finish. */
  async finished(): Promise<void> {
    const closing = this.p.config.turns.closing;
    if (!closing || !this.p.config.agents[closing.agent] || this.p.bus.state().closing) return;
    const at = isoAt(this.p.bus.now());
    await this.p.bus.update((s) => ({ ...s, closing: { agent: closing.agent, at, asked: false } }));
    await this.p.bus.events.emit('closing', { agent: closing.agent });
    await this.ask();
  }

  /** Type the closing prompt if it is owed and not typed yet (its pane could not take it before). */
  async ask(): Promise<void> {
    const s = this.p.bus.state();
    const c = s.closing;
    if (!c || c.asked || c.outcome || !s.finished) return;
    const { config } = this.p;
    const to = expectedReceiver(c.agent, { policy: config.turns.policy, agents: config.order });
    const err = await this.p.typeInto(
      c.agent,
      closingPrompt({ agent: c.agent, prompt: config.turns.closing?.prompt, to }),
    );
    if (err) {
      if (err !== this.lastError) this.p.log.warn(`could not ask ${c.agent} for the outcome yet: ${err}`);
      this.lastError = err;
      return;
    }
    await this.p.bus.update((x) => (x.closing ? { ...x, closing: { ...x.closing, asked: true } } : x));
    this.p.log.info(`asked ${c.agent} for the outcome (turns.closing)`);
  }

  /** A delivery was stamped: the outcome, when it is the closing agent's. */
  async delivered(r: ArchiveRecord): Promise<void> {
    const s = this.p.bus.state();
    if (r.type !== 'outcome' || s.closing?.agent !== r.sender || s.closing.outcome) return;
    const st = await this.p.bus.update((x) => (x.closing ? { ...x, closing: { ...x.closing, outcome: r.id } } : x));
    const file = join(this.p.config.messageDir, OUTCOME_FILE);
    try {
      await writeAtomic(file, outcomeFile(r, st.finished?.reason ?? 'unknown'));
    } catch (err) {
      this.p.log.warn(`the outcome ${r.id} is archived, but ${file} could not be written: ${(err as Error).message}`);
    }
    this.p.log.success(`${r.sender}'s outcome is ${r.id} (${OUTCOME_FILE})`);
    await this.p.bus.events.emit('outcome', { id: r.id, agent: r.sender, file: OUTCOME_FILE });
  }
}
