/** One row of `baton ls --json` (list.ts) and the dashboard's overview: declarations only, for the page's build. */

export type Run = 'running' | 'paused' | 'finished' | 'stalled' | 'stopped';

/** Who blocks a conversation, at what kind of dialog, since when, asking what. */
export interface Blocked {
  agent: string;
  kind: string;
  since: string;
  question: string;
}

export type Row = {
  folder: string;
  config: string | null;
  message_dir: string;
  bus: 'files' | 'postgres';
  /** The machine name (BATON_HOST) whose daemon serves it, or null: the machine's own (identity.ts). */
  host?: string | null;
  /** Why the machine's daemon skipped it (served.ts), or null. */
  skipped: string | null;
  /** It runs a daemon of its own, not the machine's (own-daemon.ts): absent otherwise. */
  own_daemon?: true;
} & (
  | {
      ok: true;
      conversation: string | null;
      policy: string;
      turn: string | null;
      seconds_in_turn: number | null;
      messages: number;
      run: Run;
      daemon_pid: number | null;
      waiting: number;
      /** What its turns cost so far in USD (docs/protocol.md §12), and the models counted with no price. */
      cost_usd?: number;
      unpriced?: string[];
      /** This machine's agents with no live pane in an unfinished conversation: it waits for `baton up`. */
      agents_down?: string[];
      /** The turn holder waits at a dialog for a person (docs/protocol.md §12), or null. */
      blocked?: Blocked | null;
    }
  | { ok: false; problem: string }
);
