/** Where everything lives under message_dir (docs/protocol.md §1, §4, §6, §7). */
import { join } from 'node:path';
import type { Config } from '../../config/config.js';
import { OUTCOME_FILE } from '../../core/outcome.js';
import { ASIDE } from '../folders/aside.js';

export interface Layout {
  root: string;
  state: string;
  archive: string;
  rejected: string;
  events: string;
  /**
   * Where a file is moved (claimed) while it is being archived: `.claimed/<direction>/<id>.<name>` (claims.ts).
   * Empty at rest: start-up recovery removes a claim whose message was archived and returns any other.
   */
  claims: string;
  /**
   * Where a file on its way to rejected/ is examined again, out of its writer's reach:
   * `.rejecting/<direction>/<name>` (folders/aside.ts). Empty at rest: start-up puts anything there back in its folder.
   */
  rejecting: string;
  /** The lease's lock directory (lib/lock-dir.ts): held by the one live daemon. */
  lock: string;
  /** Who holds the lock: pid and start time, for messages like "held by pid 123". */
  pidFile: string;
  /** The lease's generation: one more at every take-over, never removed (fencing: lock.ts). */
  generation: string;
  /** Moderated mode: agent messages waiting for `baton approve` / `baton reject`, as pending/<direction>/<name>. */
  pending: string;
  /** A person's requests to the daemon (requests.ts). */
  requests: string;
  /** The closing agent's outcome (daemon/closing.ts): set aside with the conversation it belongs to. */
  outcome: string;
}

export function layout(config: Pick<Config, 'messageDir'>): Layout {
  const root = config.messageDir;
  return {
    root,
    state: join(root, 'state.json'),
    archive: join(root, 'archive'),
    rejected: join(root, 'rejected'),
    events: join(root, 'events.jsonl'),
    claims: join(root, '.claimed'),
    rejecting: join(root, ASIDE),
    lock: join(root, 'daemon.lock'),
    pidFile: join(root, 'daemon.pid'),
    generation: join(root, 'daemon.gen'),
    pending: join(root, 'pending'),
    requests: join(root, 'requests'),
    outcome: join(root, OUTCOME_FILE),
  };
}
