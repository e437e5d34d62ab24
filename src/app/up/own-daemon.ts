/**
 * A conversation with a daemon of its own beside the machine's (BATON_DAEMON=conversation, or other database
 * settings: machine/join.ts `joinable`): `up` lists it in the registry's `own_daemons` (never served by the
 * machine's daemon) for `ls` and the overview; `down` takes it out (sessions.ts stopAll, what-runs.ts).
 */
import type { Liveness } from '../../bus/bus.js';
import type { Config } from '../../config/config.js';
import { log } from '../../lib/log.js';
import type { Tmux } from '../../terminal/tmux.js';
import { startWatcher } from './sessions.js';
import { recordedServer } from '../tmux-server.js';
import { entryOf, registerOwn, stateDir } from '../machine/registry.js';

/** Start its own daemon (unless one runs), list it for `ls`, say `why` (null: BATON_DAEMON asked); its session. */
export async function startOwnDaemon(
  config: Config,
  bus: Liveness,
  t: Tmux,
  o: { sessions: Map<string, { owner: string }>; why: string | null },
): Promise<string | null> {
  const session = await startWatcher(config, bus, t, o.sessions);
  if (o.why)
    log.warn(
      session
        ? `${o.why}: this conversation gets a daemon of its own, in the session "${session}"`
        : `${o.why}: this conversation keeps the daemon of its own that runs`,
    );
  try {
    await registerOwn(stateDir(), entryOf(config, recordedServer(config)));
  } catch (err) {
    // It runs all the same; only `ls` will not list it.
    log.warn(`baton ls will not list it: ${(err as Error).message}`);
  }
  return session;
}
