/**
 * A lock directory kept fresh by its holder: taken by mkdir, its mtime touched every stale/2, taken over once
 * untouched for `stale`. baton's one lock (files bus lease, machine daemon, registry), on disk proper-lockfile's so
 * an older baton respects it. All of a process's locks are refreshed in one synchronous tick (a timer per lock was
 * 60% of an idle 50-conversation daemon's main thread); a refresh finding another mtime or inode, or none, is
 * compromised. docs/decisions/0004-one-process-many-conversations.md.
 */
import { mkdirSync, rmdirSync, statSync, utimesSync } from 'node:fs';
import { isErrno } from './fsx.js';

/** On the global timer, which the unit tests' fake timers drive (real waits took 6 s); timers/promises' is not. */
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

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
  /** The directory this holder made (another one at the path is another holder's). */
  ino: number;
  /** The mtime this holder set last (ms), and whether the filesystem keeps only whole seconds. */
  mtime: number;
  seconds: boolean;
  lastUpdate: number;
  onCompromised(err: Error): void;
}

const held = new Set<Held>();
let timer: NodeJS.Timeout | null = null;
/** The tick: half the smallest stale time of the locks held (a lock refreshed less often could go stale). */
let tick = Infinity;
let exitHook = false;

const locked = (path: string) => Object.assign(new Error('Lock file is already being held'), { code: 'ELOCKED', path });

/** Is the lock at `path` held: there, and touched within `stale`? (A moment's answer, from its mtime.) */
export function lockHeld(path: string, stale: number): boolean {
  try {
    return statSync(path).mtimeMs >= Date.now() - stale;
  } catch {
    return false; // none there (or none this user may look at): not held
  }
}

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

/** Remove the lock only while it is this holder's: one that lost it unawares must not remove its successor's. */
function removeIfOurs(h: Held): void {
  try {
    if (ours(h)) rmdirSync(h.path);
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
  const seen = look(path);
  if (seen && seen.mtime >= Date.now() - stale) throw locked(path);
  if (seen) takeOver(path, seen, stale);
  else makeOnce(path); // removed meanwhile: make it, once
}

/** The lock directory at `path` as it is now, or null when there is none. */
function look(path: string): Seen | null {
  try {
    const st = statSync(path);
    return { ino: st.ino, mtime: st.mtime.getTime() };
  } catch (err) {
    if (!isErrno(err, 'ENOENT')) throw err;
    return null;
  }
}

/** A lock directory as one look saw it: a takeover removes that one, never one made since. */
export interface Seen {
  ino: number;
  mtime: number;
}

/**
 * Take over the stale lock `seen`, one taker at a time. Two takers that both saw it stale both won (the second
 * removed the first's fresh lock, both set the same first mtime, so each refresh found "its" mtime for up to
 * stale/2: two daemons delivering in one conversation). So the taker makes `<lock>.takeover-<ino>-<mtime>`
 * (mkdir: one wins), checks the lock is still `seen` (a later taker finds the winner's and backs off), removes
 * it, makes its own, removes the marker. A marker left by a killed taker goes once it is stale itself.
 */
export function takeOver(path: string, seen: Seen, stale: number): void {
  const marker = `${path}.takeover-${seen.ino}-${seen.mtime}`;
  try {
    mkdirSync(marker);
  } catch (err) {
    if (!isErrno(err, 'EEXIST')) throw err;
    removeIfStale(marker, stale);
    throw locked(path);
  }
  try {
    const now = look(path);
    if (now && (now.ino !== seen.ino || now.mtime !== seen.mtime)) throw locked(path);
    if (now) rmdirSync(path); // still the stale one: its holder stopped touching it
    makeOnce(path);
  } finally {
    removeQuietly(marker);
  }
}

function makeOnce(path: string): void {
  try {
    mkdirSync(path);
  } catch (err) {
    throw isErrno(err, 'EEXIST') ? locked(path) : err;
  }
}

function removeQuietly(path: string): void {
  try {
    rmdirSync(path);
  } catch {
    /* removed as stale by another taker (this one was slow): nothing of ours is left there */
  }
}

function removeIfStale(path: string, stale: number): void {
  try {
    if (statSync(path).mtime.getTime() < Date.now() - stale) rmdirSync(path);
  } catch {
    /* gone already, or not ours to judge: the next attempt looks again */
  }
}

/**
 * Set the new lock's mtime and learn whether the filesystem keeps milliseconds (as proper-lockfile probes). Random
 * milliseconds (1–199, not a fixed 5): two locks made in one second differ by mtime, as a freed inode is handed
 * straight back, so a holder whose lock was replaced sees it at its next refresh.
 */
function firstMtime(path: string): { ino: number; mtime: number; seconds: boolean } {
  const probe = new Date(Math.ceil(Date.now() / 1000) * 1000 + 1 + Math.floor(Math.random() * 199));
  utimesSync(path, probe, probe);
  const st = statSync(path);
  const mtime = st.mtime.getTime();
  return { ino: st.ino, mtime, seconds: mtime % 1000 === 0 };
}

/** Is the lock at the path still the one this holder made and touched last? */
function ours(h: Held): boolean {
  const st = statSync(h.path);
  return st.ino === h.ino && st.mtime.getTime() === h.mtime;
}

function join(h: Held): void {
  held.add(h);
  if (h.stale / 2 < tick) {
    if (timer) clearInterval(timer);
    tick = h.stale / 2;
    // Held locks never keep the process alive.
    timer = setInterval(() => [...held].forEach(refresh), tick).unref();
  }
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
  tick = Infinity;
}

function refresh(h: Held): void {
  try {
    if (!ours(h)) {
      compromised(h, new Error('Unable to update lock within the stale threshold'));
      return;
    }
    const now = h.seconds ? Math.ceil(Date.now() / 1000) * 1000 : Date.now();
    utimesSync(h.path, new Date(now), new Date(now));
    h.mtime = now;
    h.lastUpdate = Date.now();
  } catch (err) {
    // Gone, or failing past the stale time: lost; otherwise the next tick tries again (proper-lockfile's rules).
    if (isErrno(err, 'ENOENT') || h.lastUpdate + h.stale < Date.now()) compromised(h, err as Error);
  }
}

function compromised(h: Held, err: Error): void {
  held.delete(h);
  leaveIfEmpty();
  h.onCompromised(Object.assign(err, { code: 'ECOMPROMISED' }));
}
