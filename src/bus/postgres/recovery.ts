/**
 * Start-up on the PostgreSQL bus (docs/protocol.md §6, §10): the state as stored, checked against the archive (a
 * turn step is one transaction, so they agree unless someone edited the database), and the delivery this
 * machine committed but never stamped — possibly typed already, so typed again flagged `(redelivered)`.
 */
import { isLocal, type Config } from '../../config/config.js';
import { StateError } from '../../core/state.js';
import type { Recovered } from '../bus.js';
import type { Db } from './db.js';
import { stateOf, type Pg } from './rows.js';
import { run } from './sql/bind.js';
import { gone } from './store.js';

export async function recoverConversation(db: Db, pg: Pg, config: Config): Promise<Recovered> {
  const { conversation } = pg;
  const s = await run(db, pg.sql.conversations.state, { conversation });
  if (!s.rows[0]) throw gone(pg);
  const state = stateOf(s.rows[0].state, pg);
  if (!Object.hasOwn(config.agents, state.current_turn)) {
    throw new StateError(
      `conversation "${pg.conversation}": current_turn "${state.current_turn}" is not an agent of this config`,
    );
  }
  const n = await run(db, pg.sql.archive.counter, { conversation });
  if (n.rows[0]!.n !== state.message_counter) {
    throw new StateError(
      `conversation "${pg.conversation}": the state says ${state.message_counter} messages, the archive ${n.rows[0]!.n}`,
    );
  }
  // Committed on this machine's side but never stamped: the paste may have happened (docs/protocol.md §6).
  const local = config.order.filter((a) => isLocal(config, a));
  const u = await run(db, pg.sql.archive.unstamped, { conversation, receivers: local });
  const rec = u.rows[0]?.record ?? null;
  return { state, unfinished: rec ? { record: rec, typed: true } : null, notes: [] };
}
