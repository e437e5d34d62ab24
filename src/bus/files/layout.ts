/** Where everything lives under message_dir (docs/protocol.md §1, §4, §6, §7). */
import { join } from 'node:path';
import type { Config } from '../../config/config.js';
import { OUTCOME_FILE } from '../../core/outcome.js';
import { ASIDE } from '../folders/aside.js';

export type Layout = ReturnType<typeof layout>;

export function layout(config: Pick<Config, 'messageDir'>) {
  const root = config.messageDir;
  return {
    root,
    state: join(root, 'state.json'),
    archive: join(root, 'archive'),
    rejected: join(root, 'rejected'),
    events: join(root, 'events.jsonl'),
    /**
     * Where a file is moved (claimed) while it is being archived: `.claimed/<direction>/<id>.<name>` (claims.ts).
     * Empty at rest: start-up recovery removes a claim whose message was archived and returns any other.
     */
    claims: join(root, '.claimed'),
    /**
     * Where a file on its way to rejected/ is examined again, out of its writer's reach:
     * `.rejecting/<direction>/<name>` (folders/aside.ts). Empty at rest: start-up puts anything there back.
     */
    rejecting: join(root, ASIDE),
    /** The lease's lock directory (lib/lock-dir.ts): held by the one live daemon. */
    lock: join(root, 'daemon.lock'),
    /** Who holds the lock: pid and start time, for messages like "held by pid 123". */
    pidFile: join(root, 'daemon.pid'),
    /** The lease's generation: one more at every take-over, never removed (fencing: lock.ts). */
    generation: join(root, 'daemon.gen'),
    /** Moderated mode: agent messages waiting for `baton approve` / `baton reject`, as pending/<direction>/<name>. */
    pending: join(root, 'pending'),
    /** A person's requests to the daemon (requests.ts). */
    requests: join(root, 'requests'),
    /** The closing agent's outcome (daemon/closing.ts): set aside with the conversation it belongs to. */
    outcome: join(root, OUTCOME_FILE),
  };
}
