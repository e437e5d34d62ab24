/**
 * A folder's listing is kept while its lstat is unchanged, and read again as soon as an entry is added,
 * removed or renamed — including a change in the same clock tick as the one before (racy), and at the
 * latest after KEPT_MS whatever the stamps say.
 */
import { mkdtempSync, readdirSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { StatCache } from '../../../src/lib/stat-cache.js';

const made: string[] = [];
const fresh = () => {
  const d = mkdtempSync(join(tmpdir(), 'baton-stat-cache-'));
  made.push(d);
  return d;
};
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

/** A cache that counts its reads. */
function counted() {
  let reads = 0;
  const cache = new StatCache(async (p) => {
    reads++;
    return readdir(p);
  });
  return { cache, reads: () => reads };
}
/** The wall clock 10 s on from here: the folder's last change (its mtime and ctime) is no longer racy. */
const age = (_dir: string) => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(Date.now() + 10_000);
};
afterEach(() => vi.useRealTimers());

describe('StatCache', () => {
  it('reads an unchanged folder once, and again after an entry is added, renamed or removed', async () => {
    const d = fresh();
    writeFileSync(join(d, 'a.json'), '{}');
    age(d);
    const c = counted();
    expect((await c.cache.read(d)).value).toEqual(['a.json']);
    expect((await c.cache.read(d)).value).toEqual(['a.json']);
    expect(c.reads()).toBe(1);
    writeFileSync(join(d, 'b.json'), '{}');
    age(d);
    expect([...(await c.cache.read(d)).value].sort()).toEqual(['a.json', 'b.json']);
    renameSync(join(d, 'b.json'), join(d, 'c.json'));
    age(d);
    expect([...(await c.cache.read(d)).value].sort()).toEqual(['a.json', 'c.json']);
    rmSync(join(d, 'a.json'));
    age(d);
    expect((await c.cache.read(d)).value).toEqual(['c.json']);
    expect(c.reads()).toBe(4);
  });

  it('reads a folder changed within the last 2 s every time: a second change may keep the same times', async () => {
    const d = fresh();
    const c = counted();
    await c.cache.read(d);
    await c.cache.read(d);
    expect(c.reads()).toBe(2); // just made: racy
    // A change that leaves the folder's times exactly as they were (as a coarse clock would) is still seen
    // while the times are recent.
    const st = { m: Date.now() / 1000 };
    utimesSync(d, st.m, st.m);
    await c.cache.read(d);
    writeFileSync(join(d, 'late.json'), '{}');
    utimesSync(d, st.m, st.m);
    expect((await c.cache.read(d)).value).toEqual(['late.json']);
  });

  it('keeps a listing at most 30 s, whatever the stamps say', async () => {
    const d = fresh();
    age(d);
    const c = counted();
    const now = performance.now();
    const clock = vi.spyOn(performance, 'now').mockReturnValue(now);
    try {
      await c.cache.read(d);
      clock.mockReturnValue(now + 29_000);
      await c.cache.read(d);
      expect(c.reads()).toBe(1);
      clock.mockReturnValue(now + 31_000);
      await c.cache.read(d);
      expect(c.reads()).toBe(2);
    } finally {
      clock.mockRestore();
    }
  });

  it('forget() reads it again at the next look; a folder gone throws', async () => {
    const d = fresh();
    age(d);
    const c = counted();
    await c.cache.read(d);
    c.cache.forget();
    await c.cache.read(d);
    expect(c.reads()).toBe(2);
    rmSync(d, { recursive: true });
    await expect(c.cache.read(d)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(readdirSync(tmpdir()).includes(d)).toBe(false);
  });
});
