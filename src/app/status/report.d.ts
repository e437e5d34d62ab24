/** What `baton status --json` prints and the dashboard shows (status.ts builds it): declarations only, for web/. */
import type { SinkRecord } from '../../config/sink-record.js';
import type { WaitReason } from '../../core/wait-reason.js';

export interface StatusReport {
  /** The config file in use; null when none was found and the built-in default is shown. */
  config: string | null;
  message_dir: string;
  /** The turn policy the daemon runs (config.json's when no daemon has said: app/status/running.ts). */
  policy: string;
  /** config.json's turns.policy when the daemon runs another (edited while it runs: a policy takes a restart). */
  policy_in_file: string | null;
  current_turn: string | null;
  message_counter: number;
  last_message_id: string | null;
  pending_reply_to: string | null;
  /** Files waiting in each direction folder (out-of-turn files, or ones not taken yet). */
  held: Record<string, number>;
  rejected: number;
  /**
   * Files claimed from this machine's agents' folders, not yet stored for good: on PostgreSQL, in `.relaying/`
   * while a failed store is tried again (or until the server's disk has it); 0 on the files bus.
   */
  relaying: number;
  daemon: { running: boolean; pid: number | null };
  /**
   * The machine's daemon has it in its registry but skipped it: its pid and why (config broken, folder
   * unreadable, lease held elsewhere, an error); null otherwise. The next `baton up` here tries again.
   */
  skipped: { pid: number; problem: string } | null;
  /** Why the machine's registry does not read (nothing written to it until fixed by hand: registry.ts), or null. */
  registry_problem: string | null;
  agents: Record<string, AgentStatus>;
  /** Conversation control (docs/protocol.md §9). */
  max_turns: number;
  /** message_counter when a finished conversation was last resumed (max_turns counts from there), else 0. */
  turns_base: number;
  /** Tokens the agents used, from their hooks, and the budget (0: none). */
  tokens: { total: number; by_agent: Record<string, number>; max: number };
  /**
   * Their cost in USD (docs/protocol.md §12), in all and per agent; `unpriced`: models with no price (in
   * `tokens`, in no sum here). `max_usd`, `agents_max`: budgets in force (0: none), `resume --budget` included.
   */
  cost: {
    usd: number;
    by_agent: Record<string, number>;
    unpriced: string[];
    max_usd: number;
    agents_max: Record<string, number>;
  };
  turn_started_at: string | null;
  /** How long the turn holder has had the turn; null when no turn clock runs (finished, paused, none yet). */
  seconds_in_turn: number | null;
  nudges: number;
  stalled: boolean;
  finished: { reason: string; at: string; note?: string | undefined } | null;
  /**
   * `baton pause`: deliveries wait, the agents were not told. `reason`: who paused it if not a person (the loop
   * guard, on the messages in `evidence`; a budget reached: `budget` its key path, and what was spent of how much).
   */
  paused: {
    at: string;
    reason?: 'loop' | 'budget' | undefined;
    evidence?: string[] | undefined;
    budget?: string | undefined;
    spent_usd?: number | undefined;
    max_usd?: number | undefined;
  } | null;
  /** The turn holder waits at a dialog for a person (docs/protocol.md §12; `baton answer`), or null. */
  blocked: BlockedStatus | null;
  /** A demo conversation (`baton up --demo`): the bundled demo agents hold it. */
  demo: boolean;
  /** Moderated mode: files waiting for approval, as "<direction>/<name>". */
  pending: string[];
  /** Why each direction's waiting files (`held`) wait, by the daemon's rules (docs/reference.md "baton status"). */
  waiting: Record<string, WaitingStatus>;
  /** A person's notes to all (`send --to all`) that some agents have not got yet: ID → those agents. */
  notes: Record<string, string[]>;
  /** Where the conversation lives (docs/protocol.md §10). */
  bus: { kind: 'files' | 'postgres'; conversation: string | null };
  /** Each machine of the conversation: its daemon alive or not, its last heartbeat, its agents. */
  hosts: Record<string, HostStatus>;
  /** What this machine's daemon runs against the config file on disk; null: no daemon has said (app/status/running.ts). */
  running_config: RunningConfig | null;
  /** config.json's notify sinks and how each has fared on this machine (the daemon that sends records it). */
  notify: SinkRecord[];
}

/** What this machine's daemon runs (its run record), against config.json as it is now. */
export interface RunningConfig {
  pid: number;
  /** The turn rules it runs (`max_turns` is the one `status` shows). */
  turns: Record<string, unknown>;
  /**
   * The file on disk: what the daemon runs (`same`), changed and not read by it yet (`unread`: it looks every
   * 2 s), changed in keys only a restart applies (`restart`), or not valid (`invalid`: it runs its last good one).
   */
  file:
    | { state: 'same' }
    | { state: 'unread' }
    | { state: 'restart'; keys: string[] }
    | { state: 'invalid'; error: string };
}

/** One direction's waiting files: how many, why they wait (the first reason the daemon meets), in words. */
export type WaitingStatus = { count: number; text: string } & WaitReason;

export interface HostStatus {
  alive: boolean;
  pid: number | null;
  /** The daemon's last heartbeat (ISO; null on the files bus, whose daemon has none). */
  last_heartbeat: string | null;
  /** Since when it is as `alive` says (ISO): since its daemon took the lease, else since its last heartbeat. */
  since: string | null;
  agents: string[];
}

export interface BlockedStatus {
  agent: string;
  since: string;
  kind: 'permission' | 'question' | 'trust' | 'login' | 'other';
  question: string;
  choices?: Array<{ n: number; label: string }>;
  dialog?: string;
}

export interface AgentStatus {
  alive: boolean;
  target: string;
  pane: string | null;
  dead: boolean;
  command: string | null;
  /** Last output in the agent's window (ISO), from tmux. */
  last_activity: string | null;
  /** Why baton would not type into the pane now, or null. */
  problem: string | null;
  /** The agent kind from the config (claude, codex, …). */
  kind: string;
  /** The pane runs the bundled demo agent standing in for that kind (`baton up --demo`). */
  demo: boolean;
  /** The machine whose tmux runs it (docs/protocol.md §10); another machine's pane is not looked at from here. */
  host: string;
  /** What its own hooks last said: busy (a prompt reached its model), idle (turn ended), permission; null: none. */
  hooks: { state: 'busy' | 'idle' | 'permission'; since: string; detail?: string } | null;
  /**
   * What its screen shows, read as its kind's client draws it: input box empty (`ready`) or holding text, a
   * dialog, or unknown; `busy` while a turn runs. Null when the kind's screen is not read, or no live pane.
   */
  screen: { state: 'ready' | 'holding' | 'dialog' | 'unknown'; busy?: boolean; detail?: string } | null;
  /** Its open dialog as this machine's daemon keeps it (nothing is typed into its pane meanwhile), or null. */
  dialog: (Omit<BlockedStatus, 'agent'> & { source: 'hook' | 'screen' }) | null;
  /** Messages it would be caught up on if it got the turn now (docs/protocol.md §11; 0 with under 3 agents). */
  catch_up: number;
}
