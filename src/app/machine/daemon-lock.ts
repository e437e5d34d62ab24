/**
 * One machine daemon per user: a lock in the registry's folder (`daemon.lock`, lib/lock-dir.ts, refreshed by
 * its holder) and `daemon.json` saying who holds it. A daemon killed with `kill -9` stops refreshing the lock;
 * after 3 s the next daemon takes it over (the same rule as a conversation's files-bus lease, bus/files/lock.ts).
 */
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { readRecord } from '../../config/run-record.js';
import { writeAtomic } from '../../lib/fsx.js';
import { lockDir, lockHeld } from '../../lib/lock-dir.js';
import { pidAlive } from '../../lib/process.js';
import { timing } from '../../lib/timing.js';

const STALE_MS = timing.lockStaleMs;

export interface MachineHolder {
  pid: number;
  host: string;
  started_at: string;
  /** Started to stay when it serves nothing (`baton daemon --machine --stay`, the service). */
  stay: boolean;
  /** sha256 of the database's variables it was started with (databaseEnvHash); absent from older daemons. */
  database_env?: string;
}

/**
 * The database's variables (BATON_BUS_URL, PGPASSWORD, …) hashed, so daemon.json holds no password: a PostgreSQL
 * conversation joins the machine's daemon only with the same hash (else it could serve on the wrong database).
 */
export function databaseEnvHash(keys: readonly string[], env: NodeJS.ProcessEnv = process.env): string {
  const vars = keys.map((k) => [k, env[k] ?? '']);
  return createHash('sha256').update(JSON.stringify(vars)).digest('hex');
}

const lockPath = (dir: string) => join(dir, 'daemon.lock');
const holderPath = (dir: string) => join(dir, 'daemon.json');

const readMachineHolder = (dir: string): MachineHolder | null =>
  readRecord<MachineHolder>(holderPath(dir), (h) => typeof h.pid === 'number');

/** The machine's daemon, when one runs: its lock is kept fresh and its pid is alive. */
export function machineDaemon(dir: string): MachineHolder | null {
  const h = readMachineHolder(dir);
  return h && lockHeld(lockPath(dir), STALE_MS) && pidAlive(h.pid) ? h : null;
}

export type Taken = { ok: true; release: () => Promise<void> } | { ok: false; why: string };

/** Take the machine's lock; one held by a live daemon is refused, one left by a killed daemon taken over. */
export async function takeMachineLock(
  dir: string,
  opts: { stay: boolean; databaseEnv: string; onLost: (why: string) => void },
): Promise<Taken> {
  const started_at = new Date().toISOString();
  const { stay, databaseEnv: database_env } = opts;
  const me: MachineHolder = { pid: process.pid, host: hostname(), started_at, stay, database_env };
  const base = {
    stale: STALE_MS,
    onCompromised: (err: Error) => opts.onLost(`lost the machine daemon's lock (${err.message})`),
  };
  // The service's first start may come before any `baton up` wrote the registry (and its folder).
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  let release: () => Promise<void>;
  try {
    release = await lockDir(lockPath(dir), base);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ELOCKED') throw err;
    const running = machineDaemon(dir);
    if (running) return { ok: false, why: `the machine's daemon runs already (pid ${running.pid})` };
    try {
      release = await lockDir(lockPath(dir), { ...base, retries: { count: 16, delayMs: 500 } });
    } catch (err2) {
      if ((err2 as NodeJS.ErrnoException).code !== 'ELOCKED') throw err2;
      return { ok: false, why: `the machine's daemon runs already (pid ${readMachineHolder(dir)?.pid ?? '?'})` };
    }
  }
  await writeAtomic(holderPath(dir), `${JSON.stringify(me)}\n`);
  return {
    ok: true,
    async release() {
      if (readMachineHolder(dir)?.pid === me.pid) await rm(holderPath(dir), { force: true });
      await release().catch(() => {});
    },
  };
}
