/** The environment of the panes baton starts, and the database's variables only the daemon's pane gets. */
import { delimiter } from 'node:path';
import type { Agent, Config } from '../config/config.js';
import { BIN_DIR } from './paths.js';

/**
 * The database's address and secrets (docs/protocol.md §10): the daemon's, never an agent's — its messages go
 * through its folder, and with them it could read and write every conversation in the database (docs/trust.md).
 */
export const DATABASE_ENV = ['BATON_BUS_URL', 'PGPASSWORD', 'PGPASSFILE', 'PGSSLMODE', 'PGSSLROOTCERT'] as const;

/**
 * A pane's environment, so `baton post` finds this conversation: an agent's, or (no `agent`) the daemon's.
 * `database`: its variables too — the daemon's pane and the bundled demo agents (which read whose turn it is).
 */
export function paneEnv(config: Config, agent?: Agent, opts: { database?: boolean } = {}): Record<string, string> {
  const env: Record<string, string> = {
    PATH: `${BIN_DIR}${delimiter}${process.env.PATH ?? ''}`,
    ...(config.file ? { BATON_CONFIG: config.file } : { BATON_HOME: config.baseDir }),
  };
  // This machine's name reaches `baton post` in the panes, the database the daemon (a tmux server started
  // earlier does not have this shell's environment).
  const database = opts.database ?? !agent;
  for (const k of ['BATON_TMUX_SOCKET', 'BATON_HOST', ...(database ? DATABASE_ENV : [])])
    if (process.env[k]) env[k] = process.env[k]!;
  if (agent) Object.assign(env, agent.env, { BATON_AGENT: agent.name });
  return env;
}
