/**
 * `baton up` with the machine's daemon (`down`: leave.ts): its conversation goes into the registry, and the
 * daemon is started if none runs — in tmux session "baton-daemon" of the server this `up` reaches, so it ends
 * with that server (a test's private one, or a person ending theirs). BATON_DAEMON=conversation: own-daemon.ts.
 */
import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Liveness } from '../../bus/bus.js';
import type { Config } from '../../config/config.js';
import { log } from '../../lib/log.js';
import type { Tmux } from '../../terminal/tmux.js';
import { CLI_JS } from '../paths.js';
import { DATABASE_ENV, paneEnv } from '../pane-env.js';
import { recordedServer, recordServer } from '../tmux-server.js';
import { databaseEnvHash, machineDaemon } from './daemon-lock.js';
import { stateRoot } from './identity.js';
import { entryOf, folderIdOf, keyOf, register, stateDir } from './registry.js';
import { readServed } from './served.js';

export const MACHINE_SESSION = 'baton-daemon';

export type Joinable = { ok: true } | { ok: false; why: string };

/**
 * Whether the machine's daemon can serve it: always on the files bus; on PostgreSQL only when it was started
 * with this shell's database variables (databaseEnvHash), else it gets a daemon of its own (own-daemon.ts).
 */
export function joinable(config: Config, dir = stateDir()): Joinable {
  if (config.bus.kind !== 'postgres') return { ok: true };
  const machine = machineDaemon(dir);
  if (!machine || machine.database_env === databaseEnvHash(DATABASE_ENV)) return { ok: true };
  return {
    ok: false,
    why:
      `the machine's daemon (pid ${machine.pid}) was started with other database settings (${DATABASE_ENV.join(', ')}) ` +
      'than this shell has',
  };
}

/**
 * `name`, unless a session of that name is another's (another registry's, another XDG_STATE_HOME; another
 * conversation's): then `name[-<folder>]-<hash of owner>`.
 */
export function ownSessionName(name: string, owner: string, sessions: Map<string, { owner: string }>, folder?: string) {
  const existing = sessions.get(name);
  if (!existing || existing.owner === owner) return name;
  const hash = createHash('sha1').update(owner).digest('hex').slice(0, 6);
  return folder === undefined ? `${name}-${hash}` : `${name}-${folder}-${hash}`;
}

/** Start the machine's daemon in a tmux session of `t`'s server. Returns the session's name. */
async function startMachineDaemon(config: Config, t: Tmux, dir: string): Promise<string> {
  const sessions = await t.sessions();
  const name = ownSessionName(MACHINE_SESSION, dir, sessions);
  const r = await t.newSession({
    name,
    cwd: homedir(),
    command: `node ${JSON.stringify(CLI_JS)} daemon --machine`,
    // Its machine name, said even when unset (blank): a tmux server started from a shell with another
    // BATON_HOST holds it in its global environment, and the daemon would serve this registry as that machine.
    env: { ...paneEnv(config), XDG_STATE_HOME: dirname(stateRoot()), BATON_HOST: process.env.BATON_HOST ?? '' },
    owner: dir,
    withhold: DATABASE_ENV,
  });
  // Another `up` started it between our look and our start: that one serves.
  if (!r.ok && !/duplicate session/.test(r.stderr)) throw new Error(`cannot start the machine's daemon: ${r.stderr}`);
  // Gone when it exits (it serves nothing more): no dead pane left behind in the person's tmux.
  await t.run(['set-option', '-t', `=${name}:`, 'remain-on-exit', 'off']);
  return name;
}

/** Register it and see a machine daemon serve it (a hand-run `baton daemon` is left alone); the session started. */
export async function joinMachineDaemon(config: Config, bus: Liveness, t: Tmux): Promise<string | null> {
  const dir = stateDir();
  const d = await bus.daemon();
  const machine = machineDaemon(dir);
  await recordServer(config, t);
  if (d.running && d.pid !== machine?.pid) {
    log.info(`daemon already running (pid ${d.pid}), left alone`);
    return null;
  }
  await register(dir, { ...entryOf(config, recordedServer(config)), folder_id: folderIdOf(config.messageDir) });
  if (d.running) {
    log.info(`the machine's daemon (pid ${d.pid}) serves it already`);
    return null;
  }
  let started: string | null = null;
  const key = keyOf(entryOf(config, null));
  for (let waited = 0; waited < 15_000; waited += 100) {
    if ((await bus.daemon()).running) return started;
    const skipped = waited >= 1000 ? readServed(dir)?.skipped.find((s) => s.key === key) : undefined;
    if (skipped) {
      log.error(`the machine's daemon skipped this conversation: ${skipped.problem}`);
      return started;
    }
    // Every 5 s (a daemon starting takes a second or two on a busy machine): it exited as this one was added.
    if (waited % 5000 === 0 && !machineDaemon(dir)) {
      started = await startMachineDaemon(config, t, dir);
      log.success(`the machine's daemon started in session ${started} (it serves ${dir}/conversations.json)`);
    } else if (waited === 0) log.info(`the machine's daemon (pid ${machine?.pid}) takes it on`);
    await sleep(100);
  }
  return started; // up's own wait then says the daemon did not start
}
