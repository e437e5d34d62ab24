/** `baton resume`: a person continues a conversation that finished, was paused or stalled (steering.ts). */
import { isoAt } from '../bus/bus.js';
import { resumeNotice } from '../core/compose.js';
import type { Reply } from '../core/requests.js';
import type { Stage } from './stage.js';

/**
 * Continue after `end` (or max_turns, a stop phrase …) or `pause`. A finished conversation told every
 * pane to stop, so every pane is told it continues, and the holder what it owes (agents that obeyed
 * "stop" never wrote again). A pause told nobody, so its resume tells nobody; a stalled holder is reminded.
 */
export async function resume(stage: Stage): Promise<Reply> {
  const st = stage.bus.state();
  const was = st.finished;
  const now = isoAt(stage.bus.now());
  // max_turns and max_duration_s count again from a resume of a finished conversation.
  const next = await stage.bus.update((s) => ({
    ...s,
    finished: null,
    paused: null,
    stalled: false,
    nudges: 0,
    turn_started_at: now,
    // A finish after this one asks for its own outcome (turns.closing).
    ...(was ? { started_at: now, turns_base: s.message_counter, closing: null } : {}),
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
      ? `resumed (it was paused${st.paused.reason ? `: ${st.paused.reason}` : ''})`
      : st.stalled
        ? 'resumed (it had stalled)'
        : 'it was not finished or paused';
  return { ok: true, message: `${what}; ${holder} has the turn${told}`, current_turn: holder };
}
