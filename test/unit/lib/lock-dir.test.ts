/**
 * A lock directory (lib/lock-dir.ts): taken by mkdir, refreshed with every other lock of the process in one
 * tick, taken over once stale, and reported compromised when another holder took it over or it vanished.
 * Its clock (Date.now, its refresh tick, its retry waits) is vitest's fake one, moved on by the tests: the
 * lock's times are seconds, and waiting them out for real cost this file 6 s.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  rmdirSync,
  statSync,
  utimesSync,
} from 'node:fs';
import { basename, dirname } from 'node:path';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { lockDir, lockHeld, takeOver } from '../../../src/lib/lock-dir.js';

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});
const fresh = () => {
  const d = mkdtempSync(join(tmpdir(), 'baton-lock-dir-'));
  made.push(d);
  return join(d, 'daemon.lock');
};
beforeEach(() => {
  vi.useFakeTimers(); // starts at the real time: the lock compares the clock with real file mtimes
});
afterEach(() => {
  vi.useRealTimers();
});
/** Let `ms` pass on the fake clock, running the lock's timers due meanwhile. */
const sleep = (ms: number) => vi.advanceTimersByTimeAsync(ms);
/** A lock its holder stopped refreshing 10 s ago, and how a taker saw it. */
const staleLock = () => {
  const a = fresh();
  mkdirSync(a);
  const old = Date.now() / 1000 - 10;
  utimesSync(a, old, old);
  const st = statSync(a);
  return { a, old, seen: { ino: st.ino, mtime: st.mtime.getTime() } };
};
const never = () => {
  throw new Error('not compromised');
};

describe('lockDir', () => {
  it('refuses a held lock (ELOCKED), keeps it fresh, and removes it on release', async () => {
    const a = fresh();
    const b = fresh();
    const releaseA = await lockDir(a, { stale: 2000, onCompromised: never });
    const releaseB = await lockDir(b, { stale: 2000, onCompromised: never });
    await expect(lockDir(a, { stale: 2000, onCompromised: never })).rejects.toMatchObject({ code: 'ELOCKED' });
    const before = statSync(a).mtimeMs;
    await sleep(2300); // past the stale time: refreshed meanwhile, so still held
    expect(statSync(a).mtimeMs).toBeGreaterThan(before);
    expect(Date.now() - statSync(b).mtimeMs).toBeLessThan(2000);
    await expect(lockDir(a, { stale: 2000, onCompromised: never })).rejects.toMatchObject({ code: 'ELOCKED' });
    await releaseA();
    await releaseB();
    expect(existsSync(a) || existsSync(b)).toBe(false);
  });

  it('refreshes every lock within its own stale time, whichever lock came first', async () => {
    // The registry's lock (stale 5 s) taken before a lease's (stale 3 s): a tick at the first one's half
    // left the lease's lock to go stale under its live holder.
    const long = fresh();
    const short = fresh();
    // The same, at a fifth of the times.
    const releaseLong = await lockDir(long, { stale: 2000, onCompromised: never });
    const releaseShort = await lockDir(short, { stale: 600, onCompromised: never });
    await sleep(900);
    expect(Date.now() - statSync(short).mtimeMs).toBeLessThan(600);
    expect(lockHeld(short, 600)).toBe(true);
    await releaseShort();
    await releaseLong();
    expect(lockHeld(short, 3000)).toBe(false);
  });

  it('takes over a stale lock, waiting for it with retries', async () => {
    const a = fresh();
    mkdirSync(a);
    const old = Date.now() / 1000 - 1;
    utimesSync(a, old, old); // a holder that stopped refreshing 1 s ago: stale after 2 s
    let taken = false;
    const taking = lockDir(a, { stale: 2000, retries: { count: 10, delayMs: 200 }, onCompromised: never });
    void taking.then(() => (taken = true));
    await sleep(900);
    expect(taken).toBe(false); // still fresh: refused, tried again 200 ms later
    await sleep(400);
    expect(taken).toBe(true); // stale from 1 s on: taken over at the next try
    expect(statSync(a).mtimeMs).toBeGreaterThan(old * 1000); // made anew
    await (await taking)();
  });

  it('is compromised when another took it over (its mtime is not ours) or it vanished', async () => {
    const a = fresh();
    const b = fresh();
    const why: string[] = [];
    await lockDir(a, { stale: 2000, onCompromised: (e) => why.push(`a ${(e as NodeJS.ErrnoException).code}`) });
    await lockDir(b, { stale: 2000, onCompromised: (e) => why.push(`b ${(e as NodeJS.ErrnoException).code}`) });
    rmdirSync(a);
    mkdirSync(a); // another holder's lock now
    rmdirSync(b);
    await sleep(1200);
    expect(why.sort()).toEqual(['a ECOMPROMISED', 'b ECOMPROMISED']);
    expect(existsSync(a)).toBe(true); // the other holder's: never removed by the compromised one
  });

  it('two takers that saw the same stale lock: one takes it over, the other backs off (ELOCKED)', () => {
    const { a, seen } = staleLock(); // both takers looked before either acted
    takeOver(a, seen, 2000);
    const mine = statSync(a).ino;
    expect(() => takeOver(a, seen, 2000)).toThrow(expect.objectContaining({ code: 'ELOCKED' }));
    expect(statSync(a).ino).toBe(mine); // the winner's lock was not removed by the late taker
    expect(readdirSync(dirname(a))).toEqual([basename(a)]); // no takeover marker left
  });

  it('a takeover marker left by a taker killed on the way goes once stale; the next try takes over', () => {
    const { a, seen, old } = staleLock();
    const marker = `${a}.takeover-${seen.ino}-${seen.mtime}`;
    mkdirSync(marker);
    expect(() => takeOver(a, seen, 2000)).toThrow(expect.objectContaining({ code: 'ELOCKED' })); // fresh: wait
    utimesSync(marker, old, old);
    expect(() => takeOver(a, seen, 2000)).toThrow(expect.objectContaining({ code: 'ELOCKED' })); // stale: removed
    expect(existsSync(marker)).toBe(false);
    takeOver(a, seen, 2000);
    expect(statSync(a).ino === seen.ino && statSync(a).mtime.getTime() === seen.mtime).toBe(false);
  });

  it('is compromised when its directory was made anew, even with the same mtime (the inode says so)', async () => {
    const a = fresh();
    const why: string[] = [];
    await lockDir(a, { stale: 2000, onCompromised: (e) => why.push((e as NodeJS.ErrnoException).code ?? '') });
    const { mtime, ino } = statSync(a);
    rmdirSync(a);
    // Made anew under another inode (a file system may hand the freed one straight back: it is kept busy).
    for (let i = 0; ; i++) {
      mkdirSync(a);
      if (statSync(a).ino !== ino) break;
      if (i > 20) throw new Error('the file system keeps handing back the same inode');
      renameSync(a, join(dirname(a), `keep${i}`));
    }
    utimesSync(a, mtime, mtime);
    await sleep(1200);
    expect(why).toEqual(['ECOMPROMISED']);
    expect(existsSync(a)).toBe(true);
  });
});
