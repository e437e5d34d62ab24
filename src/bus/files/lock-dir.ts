/**
 * A lock directory kept fresh by its holder: taken by mkdir (atomic), its mtime touched every stale/2, and
 * stale — taken over by removing it and making it again — once it has not been touched for `stale`. The
 * same thing on disk as proper-lockfile's lock, whose check() `baton status` still uses.
 *
 * Not proper-lockfile's lock(): every lock it holds refreshes itself on a timer of its own, an async stat
 * and utimes through the thread pool every 1.5 s. A machine daemon serving 50 idle conversations holds 50
 * such locks, and once their folders' rescans were made cheap those refreshes were 60% of its main
 * thread's time (node --cpu-prof). Here every files-bus lease lock a process holds is refreshed in one tick, by a stat and
 * a utimes each, synchronous (microseconds on a local disk) — as the PostgreSQL bus renews every lease of
 * a process in one statement (postgres/heartbeats.ts). The refresh's rules are proper-lockfile's: the
 * mtime found must be the one this holder set last (else another took the lock over: compromised), a
 * lock gone is compromised, and a failed touch is tried again until the stale time has passed.
 */
import { mkdirSync, rmdirSync, statSync, utimesSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { isErrno } from '../../lib/fsx.js';

export interface DirLockOptions {
  stale: number;
  /** Attempts after the first, `delayMs` apart, while the lock is held (fresh) by another. */
  retries?: { count: number; delayMs: number };
  /** The lock was taken over by another or removed: this holder no longer holds it. */
  onCompromised(err: Error): void;
}

interface Held {
  path: string;
  stale: number;
  /** The mtime this holder set last (ms), and whether the filesystem keeps only whole seconds. */
  mtime: number;
  seconds: boolean;
  lastUpdate: number;
  onCompromised(err: Error): void;
}

const held = new Set<Held>();
let timer: NodeJS.Timeout | null = null;
let exitHook = false;

const locked = (path: string) => Object.assign(new Error('Lock file is already being held'), { code: 'ELOCKED', path });

/** Take the lock at `path`; resolves with its release. Throws an error with code ELOCKED while another holds it. */
export async function lockDir(path: string, opts: DirLockOptions): Promise<() => Promise<void>> {
  for (let attempt = 0; ; attempt++) {
    try {
      take(path, opts.stale);
      break;
    } catch (err) {
      if (!isErrno(err, 'ELOCKED') || attempt >= (opts.retries?.count ?? 0)) throw err;
      await sleep(opts.retries!.delayMs);
    }
  }
  const h: Held = {
    path,
    stale: opts.stale,
    ...firstMtime(path),
    lastUpdate: Date.now(),
    onCompromised: opts.onCompromised,
  };
  join(h);
  return async () => {
    if (!held.delete(h)) return; // compromised: the lock there is not this holder's
    leaveIfEmpty();
    removeIfOurs(h);
  };
}

/**
 * Remove the lock only while it is still the one this holder touched last: a holder that lost it (paused past
 * the stale time, taken over) and has not noticed yet must not remove its successor's lock on the way out.
 */
function removeIfOurs(h: Held): void {
  try {
    if (statSync(h.path).mtime.getTime() === h.mtime) rmdirSync(h.path);
  } catch (err) {
    if (!isErrno(err, 'ENOENT')) throw err;
  }
}

function take(path: string, stale: number): void {
  try {
    mkdirSync(path);
    return;
  } catch (err) {
    if (!isErrno(err, 'EEXIST')) throw err;
  }
  let mtime: number;
  try {
    mtime = statSync(path).mtime.getTime();
  } catch (err) {
    if (!isErrno(err, 'ENOENT')) throw err;
    mtime = -Infinity; // removed meanwhile: make it, once
  }
  if (mtime >= Date.now() - stale) throw locked(path);
  try {
    if (mtime !== -Infinity) rmdirSync(path); // stale: its holder stopped touching it
    mkdirSync(path);
  } catch (err) {
    if (isErrno(err, 'EEXIST')) throw locked(path);
    if (!isErrno(err, 'ENOENT')) throw err;
    // Removed by another taking it over at the same moment: whoever makes it first holds it.
    try {
      mkdirSync(path);
    } catch (again) {
      throw isErrno(again, 'EEXIST') ? locked(path) : again;
    }
  }
}

/** Set the new lock's mtime, and learn whether the filesystem keeps milliseconds (as proper-lockfile probes). */
function firstMtime(path: string): { mtime: number; seconds: boolean } {
  const probe = new Date(Math.ceil(Date.now() / 1000) * 1000 + 5);
  utimesSync(path, probe, probe);
  const mtime = statSync(path).mtime.getTime();
  return { mtime, seconds: mtime % 1000 === 0 };
}

function join(h: Held): void {
  held.add(h);
  timer ??= setInterval(refreshAll, h.stale / 2).unref(); // held locks never keep the process alive
  if (!exitHook) {
    // A process that exits holding locks removes them, as proper-lockfile did: the next daemon need not wait.
    process.on('exit', () => {
      for (const l of held) {
        try {
          removeIfOurs(l);
        } catch {
          /* cannot: it goes stale */
        }
      }
    });
    exitHook = true;
  }
}

function leaveIfEmpty(): void {
  if (held.size > 0 || !timer) return;
  clearInterval(timer);
  timer = null;
}

function refreshAll(): void {
  for (const h of [...held]) refresh(h);
}

function refresh(h: Held): void {
  const over = () => h.lastUpdate + h.stale < Date.now();
  try {
    if (statSync(h.path).mtime.getTime() !== h.mtime) {
      compromised(h, new Error('Unable to update lock within the stale threshold'));
      return;
    }
    const now = h.seconds ? Math.ceil(Date.now() / 1000) * 1000 : Date.now();
    utimesSync(h.path, new Date(now), new Date(now));
    h.mtime = now;
    h.lastUpdate = Date.now();
  } catch (err) {
    // Gone, or failing past the stale time: lost; otherwise the next tick tries again (proper-lockfile's rules).
    if (isErrno(err, 'ENOENT') || over()) compromised(h, err as Error);
  }
}

function compromised(h: Held, err: Error): void {
  held.delete(h);
  leaveIfEmpty();
  h.onCompromised(Object.assign(err, { code: 'ECOMPROMISED' }));
}
