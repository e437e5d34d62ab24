/** `baton resume`: a person continues a conversation that finished, was paused or stalled (steering.ts). */
import { isoAt } from '../bus/bus.js';
import { agentKey, conversationKey, dollars } from '../core/budget.js';
import { resumeNotice } from '../core/compose.js';
import type { Reply } from '../core/requests.js';
import type { Stage } from './stage.js';

/**
 * Continue after `end` (or max_turns, a stop phrase …) or `pause`. A finished conversation told every
 * pane to stop, so every pane is told it continues, and the holder what it owes (agents that obeyed
 * "stop" never wrote again). A pause told nobody, so its resume tells nobody; a stalled holder is reminded.
 */
export async function resume(stage: Stage, budget?: number): Promise<Reply> {
  const st = stage.bus.state();
  const was = st.finished;
  const now = isoAt(stage.bus.now());
  // `--budget USD` raises the budget that paused it (else the conversation's) for this conversation.
  const raise = budget !== undefined ? (st.paused?.reason === 'budget' && st.paused.budget) || conversationKey : null;
  // max_turns and max_duration_s count again from a resume of a finished conversation.
  const next = await stage.bus.update((s) => ({
    ...s,
    finished: null,
    paused: null,
    stalled: false,
    nudges: 0,
    turn_started_at: now,
    // The clock starts again: a block before now counts for nothing of the new turn (or run).
    ...(s.turn_blocked_ms ? { turn_blocked_ms: 0 } : {}),
    // A finish after this one asks for its own outcome (turns.closing).
    ...(was
      ? { started_at: now, turns_base: s.message_counter, closing: null, ...(s.blocked_ms ? { blocked_ms: 0 } : {}) }
      : {}),
    ...(raise ? { raised: { ...s.raised, [raise]: budget! } } : {}),
  }));
  const holder = next.current_turn;
  await stage.bus.events.emit('resumed', {
    was: was?.reason ?? null,
    paused: Boolean(st.paused),
    current_turn: holder,
  });
  stage.resumed();
  const tell = was ? stage.config.order : st.stalled ? [holder] : [];
  const failed: string[] = [];
  for (const agent of tell) {
    const err = await stage.typing.notice(agent, resumeNotice(stage.config, agent, next));
    if (err) failed.push(`could not tell ${agent}: ${err}`);
  }
  const told =
    tell.length === 0
      ? ''
      : failed.length
        ? `; ${failed.join('; ')}`
        : tell.length > 1
          ? '; every pane was told'
          : `; ${holder} was reminded`;
  const what = was
    ? `resumed (it had finished: ${was.reason})`
    : st.paused
      ? `resumed (it was paused${st.paused.reason === 'budget' ? ` by its budget ${st.paused.budget}` : st.paused.reason ? `: ${st.paused.reason}` : ''})`
      : st.stalled
        ? 'resumed (it had stalled)'
        : 'it was not finished or paused';
  return {
    ok: true,
    message: `${what}; ${holder} has the turn${told}${budgetNote(stage, raise, budget)}`,
    current_turn: holder,
  };
}

/**
 * What a resume did to a cost budget: raised one (`--budget`), or left a spent one spent — then the next
 * turn that costs pauses it again (core/budget.ts says why), and the person is told so now, not surprised.
 */
function budgetNote(stage: Stage, raised: string | null, budget: number | undefined): string {
  const s = stage.bus.state();
  const spent = s.cost;
  if (raised) {
    const used = raised === conversationKey ? (spent?.usd ?? 0) : (spent?.by_agent[raised.split('.')[1]!] ?? 0);
    const over = used >= budget! ? ` (already spent: the next turn that costs pauses it again)` : '';
    return `; ${raised} raised to ${dollars(budget!)} for this conversation, ${dollars(used)} spent${over}`;
  }
  if (!spent) return '';
  const config = stage.config;
  const limits: Array<[string, number, number]> = [
    [conversationKey, s.raised?.[conversationKey] ?? config.turns.max_cost_usd, spent.usd],
    ...config.order.map((a): [string, number, number] => [
      agentKey(a),
      s.raised?.[agentKey(a)] ?? config.agents[a]!.maxCostUsd,
      spent.by_agent[a] ?? 0,
    ]),
  ];
  const over = limits.filter(([, max, used]) => max > 0 && used >= max);
  if (!over.length) return '';
  const which = over.map(([key, max, used]) => `${key} ${dollars(max)}, ${dollars(used)} spent`).join('; ');
  return `; its budget is spent (${which}): the next turn that costs pauses it again — "baton resume --budget USD" raises it`;
}
