/**
 * lib/log-burst.ts: of a burst of warnings, the first few of each second are logged as they come and the
 * rest told as one count when the second is over (or at a flush, when the daemon stops).
 */
import { describe, expect, it } from 'vitest';
import { BurstLog } from '../../../src/lib/log-burst.js';

const world = () => {
  const lines: string[] = [];
  const log = new BurstLog((l) => lines.push(l), { first: 2, windowMs: 1000, more: (n) => `${n} more` });
  return { lines, log };
};

describe('BurstLog', () => {
  it('logs the first of a window, counts the rest, and tells the count when the next window starts', () => {
    const { lines, log } = world();
    for (let i = 0; i < 5; i++) log.warn(`w${i}`, 100 + i);
    expect(lines).toEqual(['w0', 'w1']);
    log.warn('later', 1200);
    expect(lines).toEqual(['w0', 'w1', '3 more', 'later']);
    log.flush();
    expect(lines).toHaveLength(4); // nothing held: nothing more said
  });

  it('tells what it held at a flush, once', () => {
    const { lines, log } = world();
    for (let i = 0; i < 4; i++) log.warn(`w${i}`, 10);
    log.flush();
    log.flush();
    expect(lines).toEqual(['w0', 'w1', '2 more']);
  });

  it('tells the count by itself a window after it started holding, when nothing else comes', async () => {
    const lines: string[] = [];
    const log = new BurstLog((l) => lines.push(l), { first: 1, windowMs: 30, more: (n) => `${n} more` });
    log.warn('a');
    log.warn('b');
    log.warn('c');
    await new Promise((r) => setTimeout(r, 60));
    expect(lines).toEqual(['a', '2 more']);
  });
});
