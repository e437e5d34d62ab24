/**
 * The loop guard in the daemon (docs/protocol.md §12; the rule is core/loop.ts): after each delivery, the
 * last agent messages are read from the archive and, when the last `window` of them added nothing, the
 * conversation is paused — `paused: {reason: "loop", evidence}` and a `loop` event — never ended: a guess
 * may be wrong, and a person's `baton resume` goes on. The guard then looks only past the messages it paused
 * on (`loop_since`), so a resume is not undone by the very same window at the next delivery.
 */
import { isoAt, type Clock, type Events, type Records, type TurnState } from '../bus/bus.js';
import { formatId, parseId } from '../core/ids.js';
import { loopCheck, loopRulesOf, type Said } from '../core/loop.js';
import type { ArchiveRecord } from '../core/record.js';
import type { Uses } from './context.js';

export interface LoopGuardParts extends Uses<'config' | 'log'> {
  bus: TurnState & Records & Events & Clock;
}

export class LoopGuard {
  /** The last messages read, by ID, and the conversation (its `started_at`) they are of. */
  private readonly kept = new Map<string, Said>();
  private keptFor: string | undefined;

  constructor(private readonly p: LoopGuardParts) {}

  /** A delivery was stamped (and did not end the conversation): does the conversation go in circles? */
  async afterDelivery(r: ArchiveRecord): Promise<void> {
    const rules = loopRulesOf(this.p.config.turns.loop_guard);
    const s = this.p.bus.state();
    if (!rules || s.finished || s.paused || parseId(r.id) === null) return;
    const recent = await this.recent(r, s.message_counter, 2 * rules.window, s.started_at);
    const verdict = loopCheck(recent, s.loop_since ?? 0, rules);
    if (!verdict.loop) return;
    const last = recent.at(-1)!.id;
    const st = await this.p.bus.update((x) => ({
      ...x,
      paused: { at: isoAt(this.p.bus.now()), reason: 'loop' as const, evidence: verdict.evidence },
      loop_since: parseId(last) ?? x.message_counter,
    }));
    this.p.log.warn(
      `paused by the loop guard: ${verdict.evidence.join(', ')} added nothing (${verdict.kind}); "baton resume" goes on`,
    );
    await this.p.bus.events.emit('loop', {
      kind: verdict.kind,
      evidence: verdict.evidence,
      current_turn: st.current_turn,
    });
  }

  /**
   * The last `n` agent messages up to msg_<counter>, oldest first (fewer when the archive has fewer). What a
   * message said never changes, so the last few are kept between deliveries — under the conversation's
   * `started_at`, never under the ID alone: after `up --fresh` on another machine, whose daemon delivered the
   * new ones, the same IDs are another conversation's. Read afresh each time, the window cost 7 archive reads
   * a delivery, a third of a ping-pong's CPU per message.
   */
  private async recent(r: ArchiveRecord, counter: number, n: number, conversation?: string): Promise<Said[]> {
    if (conversation !== this.keptFor) this.kept.clear();
    this.keptFor = conversation;
    const out: Said[] = [];
    for (let k = counter; k > 0 && k > counter - n; k--) {
      const id = formatId(k);
      let said = conversation === undefined ? undefined : this.kept.get(id);
      if (!said) {
        const rec = id === r.id ? r : await this.p.bus.record(id);
        if (!rec) break;
        said = { id, sender: rec.sender, content: rec.content };
      }
      out.unshift(said);
    }
    this.kept.clear();
    if (conversation !== undefined) for (const said of out) this.kept.set(said.id, said);
    return out;
  }
}
