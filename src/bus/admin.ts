/** What `up`, `up --fresh` and `doctor --repair` do to a conversation while no daemon runs. */
import type { State } from '../core/state.js';

export interface Admin {
  /**
   * Create what a new conversation needs; write `state` only if there is no state and no archive yet (a
   * state missing beside an archive is rebuilt from it by the next daemon). Idempotent, and safe beside a
   * running daemon: it then writes no state. On the PostgreSQL bus it also refuses (ConfigError) a config
   * other than the one the conversation's running machines share (postgres/agreement.ts).
   */
  prepare(state: State): Promise<void>;
  /**
   * Run `fn` holding the writer's lease, so no daemon writes meanwhile (doctor --repair). Throws
   * LeaseHeldError when a live daemon holds it. The lease is released when `fn` ends, however it ends.
   */
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
  /** Rewrite the state, whole or not at all. Only inside exclusive(): nothing else may write it then. */
  overwriteState(state: State): Promise<void>;
  /**
   * Move the conversation aside (kept, never deleted), so the next start begins a new one with `fresh`;
   * returns where it went, or null if there was nothing. Only while this machine's daemon is stopped (`up
   * --fresh` stops it first); on the PostgreSQL bus the other machines' daemons follow the new one.
   */
  setAside(fresh: State): Promise<string | null>;
}
