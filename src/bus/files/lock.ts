/**
 * The files bus's lease — one daemon per message folder: a lock directory (`message_dir/daemon.lock`,
 * lib/lock-dir.ts) plus `daemon.pid`. A killed daemon's lock goes stale after STALE_MS and is taken over; a live
 * holder refuses the newcomer (LeaseHeldError, exit 3). Fencing: every take-over writes a new generation to
 * `daemon.gen`, and check() before every durable write refuses a newer one, a compromised lock, or a renewal too
 * old to prove nobody took over (a paused daemon once woke and overwrote a record); keystrokes are fenced in tmux.
 */
import { hostname } from 'node:os';
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { FencedError, fenceToken, LeaseHeldError, type Holder, type Lease } from '../bus.js';
import type { DaemonStatus } from '../reader.js';
import { pidAlive } from '../../lib/process.js';
import { writeAtomic } from '../../lib/fsx.js';
import type { Layout } from './layout.js';
import { lockDir, lockHeld } from '../../lib/lock-dir.js';
import { timing } from '../../lib/timing.js';

const STALE_MS = timing.lockStaleMs;

function readHolder(l: Layout): Holder | null {
  try {
    const h = JSON.parse(readFileSync(l.pidFile, 'utf8')) as Holder;
    return typeof h.pid === 'number' ? h : null;
  } catch {
    return null;
  }
}

/** The newest lease generation taken on this folder (0: never, or a file that does not read). */
function readGeneration(l: Layout): number {
  try {
    return Number.parseInt(readFileSync(l.generation, 'utf8'), 10) || 0;
  } catch {
    return 0;
  }
}

/**
 * The generation a new holder takes: one more than the newest on record; with none (a folder new or made
 * again, a daemon.gen that does not read), the clock in tenths of a second. Started again at 1, it was below
 * the token a tmux server still held from the folder before (`rm -rf messages`, then `up`): tmux refused every
 * keystroke of the new daemon. A take-over takes over a tenth of a second, so the clock stays ahead of the
 * generations counted before it; and it fits the token's 12 digits until the year 2286.
 */
function nextGeneration(l: Layout, now = Date.now()): number {
  const newest = readGeneration(l);
  return newest > 0 ? newest + 1 : Math.max(1, Math.floor(now / 100));
}

/**
 * A file's identity (device, inode, size, mtime, ctime); null when it cannot be stat'ed. Before every durable
 * write the holder checks `daemon.gen` is still the file it wrote — one stat, where reading it took four calls,
 * three times a delivery — and reads it only when not. A take-over writes the next generation by a rename (a
 * new inode while ours exists); an inode freed and given again later comes with its own ctime, which no
 * process can set.
 */
function identityOf(file: string): string | null {
  const st = statSync(file, { throwIfNoEntry: false });
  return st ? `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}` : null;
}

/** The holder refreshes the lock every STALE_MS/2; an older lock means the holder stopped doing so. */
const lockFresh = (l: Layout): boolean => lockHeld(l.lock, STALE_MS / 2 + 1500);

/** Is a live daemon holding this folder? (A stale lock or a dead pid means no.) */
export async function daemonStatus(l: Layout): Promise<DaemonStatus> {
  const locked = lockHeld(l.lock, STALE_MS);
  const holder = readHolder(l);
  // A lock kept fresh whose holder file does not read (removed by hand; the instant a daemon takes or leaves
  // the lock) is held all the same, by a daemon that has not said who: read as free, `up --fresh` moved a
  // live daemon's conversation into history/ under it. (acquireLock takes it the same way: alive.)
  if (locked && holder === null) return { running: true, pid: null, holder: null };
  const alive = holder !== null && (holder.host !== hostname() || pidAlive(holder.pid));
  return { running: locked && alive, pid: locked && holder ? holder.pid : null, holder: locked ? holder : null };
}

/**
 * Take the lock. If it is held by a process that is no longer alive, wait (up to about STALE_MS + 3 s)
 * for it to go stale and take it over.
 */
export async function acquireLock(
  l: Layout,
  onLost: (why: string) => void = () => {},
  me: Holder = { pid: process.pid, host: hostname(), started_at: new Date().toISOString() },
): Promise<Lease> {
  let lost: string | null = null;
  const listeners = [onLost];
  const markLost = (why: string) => {
    if (lost !== null) return;
    lost = why;
    for (const f of listeners) f(why);
  };
  const onCompromised = (err: Error) => markLost(`lost the lock on ${l.root} (${err.message})`);
  const opts = { stale: STALE_MS, onCompromised };
  let release: () => Promise<void>;
  try {
    release = await lockDir(l.lock, opts);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ELOCKED') throw err;
    const holder = readHolder(l);
    // A live holder that keeps its lock fresh: refuse at once. Otherwise (killed, or a reused pid whose
    // lock has stopped being refreshed) wait for the lock to go stale and take it over.
    const alive = holder === null || holder.host !== hostname() || pidAlive(holder.pid);
    if (alive && lockFresh(l) && holder?.pid !== me.pid) throw new LeaseHeldError(l.root, holder);
    try {
      release = await lockDir(l.lock, { ...opts, retries: { count: 16, delayMs: 500 } });
    } catch (err2) {
      if ((err2 as NodeJS.ErrnoException).code === 'ELOCKED') throw new LeaseHeldError(l.root, readHolder(l));
      throw err2;
    }
  }
  const generation = nextGeneration(l);
  await writeAtomic(l.generation, `${generation}\n`);
  // The file as this holder wrote it: while daemon.gen is still that very file, it names this generation.
  let mine = identityOf(l.generation);
  await writeAtomic(l.pidFile, `${JSON.stringify(me)}\n`);
  const lose = (why: string) => {
    markLost(why);
    throw new FencedError(why);
  };
  return {
    holder: me,
    generation,
    fence: { key: createHash('sha1').update(l.root).digest('hex').slice(0, 10), token: fenceToken(generation) },
    onLost(listener) {
      listeners.push(listener);
    },
    check() {
      if (lost !== null) throw new FencedError(lost);
      const now = identityOf(l.generation);
      if (now === null || now !== mine) {
        const newest = readGeneration(l);
        if (newest !== generation)
          lose(`another daemon took over ${l.root} (generation ${newest}, this one ${generation})`);
        mine = now; // rewritten with this very generation (never by baton): that file is the one to know now
      }
      // Renewed within the stale time (less a margin): nobody can have found it stale and taken it.
      let age: number;
      try {
        age = Date.now() - statSync(l.lock).mtimeMs;
      } catch {
        return lose(`the lock on ${l.root} is gone`);
      }
      if (age > STALE_MS - 100)
        throw new FencedError(
          `cannot prove it still holds ${l.root} (the lock was last renewed ${Math.round(age)} ms ago)`,
          false,
        );
    },
    async release() {
      if (readHolder(l)?.pid === me.pid) await rm(l.pidFile, { force: true });
      // A lease known lost (another daemon took over, or the lock is gone): the lock there is not ours. A
      // daemon woken from a pause once removed its successor's lock on release (proper-lockfile's release did
      // not look) before its own lock's compromise was noticed, then took the lease back.
      if (lost === null) await release().catch(() => {});
    },
  };
}
