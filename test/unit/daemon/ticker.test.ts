/** One timer for every daemon's rescan in a process: every member's chore runs at each tick, until it leaves. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { everyTick } from '../../../src/daemon/ticker.js';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('everyTick', () => {
  it('runs every member at each tick on one timer, and stops the timer when the last one leaves', async () => {
    const ran: string[] = [];
    const leaveA = everyTick(2000, async () => void ran.push('a'));
    const leaveB = everyTick(2000, async () => void ran.push('b'));
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(2000);
    expect(ran).toEqual(['a', 'b']);
    leaveA();
    leaveA(); // twice is once
    await vi.advanceTimersByTimeAsync(2000);
    expect(ran).toEqual(['a', 'b', 'b']);
    leaveB();
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(ran).toHaveLength(3);
  });

  it('a slow or failing chore holds up no other', async () => {
    let fast = 0;
    const leaveSlow = everyTick(500, () => new Promise(() => {})); // never settles
    const leaveBad = everyTick(500, async () => {
      throw new Error('boom');
    });
    const leaveFast = everyTick(500, async () => void fast++);
    await vi.advanceTimersByTimeAsync(1500);
    expect(fast).toBe(3);
    for (const leave of [leaveSlow, leaveBad, leaveFast]) leave();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a different period has its own timer', async () => {
    const ran: number[] = [];
    const a = everyTick(100, async () => void ran.push(100));
    const b = everyTick(300, async () => void ran.push(300));
    await vi.advanceTimersByTimeAsync(300);
    expect(ran).toEqual([100, 100, 100, 300]);
    a();
    b();
  });
});
