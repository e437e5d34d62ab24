/**
 * What an agent whose client was started again (a reboot, a crash, `down` and `up`, a killed pane) is owed
 * when it holds the turn (docs/protocol.md §12): typed nothing, the new pane waits for a message and the
 * conversation for its reply, and with `timeout_s: 0` nothing ever says so.
 *
 * - Session resumed and the message's receipt came (its model got it): a reminder naming it.
 * - Session resumed but no receipt came, or the client started new (`--fresh-agents`, nothing to resume): the
 *   message again, flagged `(redelivered)`.
 * - Not known how it started (a pane baton did not start): a reminder; never typed twice on a guess.
 *
 * Pure: the daemon (daemon/restarted.ts) reads the state, the record and the pane, and types what this says.
 */

/** How the agent's client was started in its pane (`baton up` marks the panes it starts). */
export type Start = 'resumed' | 'fresh' | 'unknown';

export interface Situation {
  /** The agent whose pane is a new one, and whose turn it is. */
  agent: string;
  holder: string;
  finished: boolean;
  paused: boolean;
  /** The message the holder owes a reply to, as archived (null: none, the conversation's first turn). */
  owed: { id: string; receiver: string; delivered: boolean; received: boolean } | null;
  start: Start;
  /** It has written its reply already (waiting in its folder or the database). */
  answered: boolean;
}

export type Owed =
  | { action: 'none'; why: string }
  /** Not now (the conversation is finished or paused): looked at again later. */
  | { action: 'later'; why: string }
  | { action: 'redeliver'; id: string; why: string }
  | { action: 'remind'; id: string; why: string };

export function owedAfterRestart(s: Situation): Owed {
  if (s.agent !== s.holder) return { action: 'none', why: 'it does not hold the turn' };
  if (s.answered) return { action: 'none', why: 'it has answered already' };
  if (!s.owed || s.owed.receiver !== s.agent) return { action: 'none', why: 'it owes a reply to no message' };
  // Cut short before its stamp: the courier types it again, flagged, as after any crash.
  if (!s.owed.delivered) return { action: 'none', why: `${s.owed.id} is still being delivered` };
  if (s.finished || s.paused)
    return { action: 'later', why: `the conversation is ${s.finished ? 'finished' : 'paused'}` };
  const id = s.owed.id;
  if (s.start === 'fresh') return { action: 'redeliver', id, why: 'its client started new: its model has none of it' };
  if (s.start === 'resumed' && !s.owed.received)
    return { action: 'redeliver', id, why: 'its session was resumed, but its model never got it (no receipt came)' };
  return {
    action: 'remind',
    id,
    why:
      s.start === 'resumed' ? 'its session was resumed and its model got it' : 'its pane was started by someone else',
  };
}

/** The reminder typed into the pane of an agent whose client was started again. */
export function restartReminder(o: {
  agent: string;
  id: string;
  from: string;
  resumed: boolean;
  hint: string;
}): string {
  const how = o.resumed ? 'your session was resumed' : 'your pane was started again';
  return (
    `[baton] ${o.agent}, ${how}: it is your turn, and ${o.id} from ${o.from} is waiting for your reply ` +
    `("baton show ${o.id}" prints it).\n${o.hint}`
  );
}

const REMINDED =
  /^\[baton\] [A-Za-z0-9][A-Za-z0-9_-]*, your (?:session was resumed|pane was started again): it is your turn, and ((?:msg|user)_\d{4,}) from /m;

/**
 * The message a restart reminder in a prompt names, or null: the turn it starts answers that message, so an
 * agent whose final reply baton posts (`reply: "auto"`) has it posted as the reply to it — else the turn a
 * reminder started had no message, and its answer went nowhere.
 */
export const remindedOf = (prompt: string): string | null => REMINDED.exec(prompt)?.[1] ?? null;
