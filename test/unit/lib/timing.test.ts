import { describe, expect, it } from 'vitest';
import { DEFAULT_TIMING, timeScale, timingAt } from '../../../src/lib/timing.js';

describe('timing', () => {
  it('BATON_TIME_SCALE only shortens, within 0.05–1; anything else is 1', () => {
    expect(timeScale({})).toBe(1);
    expect(timeScale({ BATON_TIME_SCALE: '0.25' })).toBe(0.25);
    expect(timeScale({ BATON_TIME_SCALE: '0.05' })).toBe(0.05);
    for (const bad of ['0', '0.01', '2', '-1', 'fast', '', 'Infinity'])
      expect(timeScale({ BATON_TIME_SCALE: bad })).toBe(1);
  });

  it('scales every time, lists too, never below 1 ms', () => {
    expect(timingAt(1)).toEqual(DEFAULT_TIMING);
    const t = timingAt(0.25);
    expect(t.lockStaleMs).toBe(750);
    expect(t.leaseStaleMs).toBe(1250);
    expect(t.paneRetryMs).toEqual([63, 125, 250, 500, 1000, 1250]);
    expect(Object.keys(t).sort()).toEqual(Object.keys(DEFAULT_TIMING).sort());
    expect(Math.min(...Object.values(timingAt(0.05)).flat())).toBeGreaterThanOrEqual(1);
  });
});
