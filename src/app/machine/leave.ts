/**
 * `baton down` and `up --fresh` with the machine's daemon (join.ts): this conversation leaves the registry
 * and the daemon lets go of it — stops its scheduler and watches, releases its lease — while every other
 * conversation it serves goes on.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Liveness } from '../../bus/bus.js';
import type { Config } from '../../config/config.js';
import { machineDaemon } from './daemon-lock.js';
import { entryOf, isRegistered, keyOf, readRegistry, stateDir, unregister } from './registry.js';

export type Left = { left: false } | { left: true; pid: number | null; released: boolean };

/**
 * `down` (and `up --fresh`): remove this conversation from the registry and wait (up to 10 s) for the daemon
 * to let go of it. Not registered: nothing done, the caller stops a daemon of its own as before.
 */
export async function leaveMachineDaemon(config: Config, bus: Liveness): Promise<Left> {
  const dir = stateDir();
  const key = keyOf(entryOf(config, null));
  if (!isRegistered(dir, key)) return { left: false };
  const pid = (await bus.daemon()).pid;
  await unregister(dir, key);
  for (let i = 0; i < 100; i++) {
    const d = await bus.daemon();
    if (!d.running || d.pid !== pid) {
      await exitWhenIdle(dir);
      return { left: true, pid, released: true };
    }
    await sleep(100);
  }
  return { left: true, pid, released: false };
}

/** The last conversation left: the daemon (not started to stay) exits; wait for it, so `down` leaves nothing. */
async function exitWhenIdle(dir: string): Promise<void> {
  if (readRegistry(dir).registry.conversations.length) return;
  for (let i = 0; i < 50; i++) {
    const h = machineDaemon(dir);
    if (!h || h.stay) return;
    await sleep(100);
  }
}
