/**
 * Claimed files whose store failed (postgres/relay-stranded.ts): tried again with backoff (250 ms doubling
 * to 5 s, the daemon woken when due), oldest claim first, their folder's later files behind them, one log
 * line when an outage begins and one when it ends.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Stranded } from '../../../../src/bus/postgres/relay-stranded.js';
import type { Direction } from '../../../../src/config/config.js';

const d = (name: string): Direction => ({ name, from: 'a', to: 'b', dir: `/m/${name}` });
const file = (dir: string, as: string) => ({ d: d(dir), dir: `/m/${dir}/.relaying`, as });

describe('stranded relay files', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['performance', 'setTimeout', 'clearTimeout'] }));
  afterEach(() => vi.useRealTimers());

  it('are due with backoff, oldest claim first, waking the daemon; one line per outage', () => {
    const lines: string[] = [];
    const log = { warn: (l: string) => lines.push(`warn ${l}`), info: (l: string) => lines.push(`info ${l}`) };
    const s = new Stranded(log as never);
    const woken: string[] = [];
    s.wakeWith((h) => woken.push(h.kind));
    const later = file('x', '1700000000002-7-12-b.json');
    const first = file('x', '1700000000002-7-3-a.json');
    s.add(later, 'timeout');
    s.add(first, 'timeout');
    expect(s.due()).toEqual([]); // not before the backoff
    expect(s.holds(d('x'))).toBe(true);
    expect(s.holds(d('y'))).toBe(false);
    expect(s.count(['x', 'y'])).toBe(2);
    vi.advanceTimersByTime(500); // the second add doubled it to 500 ms
    expect(woken).toEqual(['messages']);
    expect(s.due().map((f) => f.as)).toEqual([first.as, later.as]);
    for (let i = 0; i < 10; i++) s.add(first, 'timeout'); // failing again: the wait grows to 5 s at most
    vi.advanceTimersByTime(4999);
    expect(s.due()).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(s.due()).toHaveLength(2);
    s.done(first);
    s.done(later);
    expect(s.count(['x'])).toBe(0);
    expect(lines).toEqual([
      'warn cannot store x/b.json in the database (timeout); it waits in .relaying/ and is tried again',
      'info the files kept in .relaying/ are stored (after 5.5 s)',
    ]);
  });

  it('says nothing for a store the lease refused (the daemon says why itself)', () => {
    const lines: string[] = [];
    const s = new Stranded({ warn: (l: string) => lines.push(l), info: (l: string) => lines.push(l) } as never);
    const f = file('x', '1-1-1-a.json');
    s.add(f, null);
    s.done(f);
    expect(lines).toEqual([]);
  });
});
