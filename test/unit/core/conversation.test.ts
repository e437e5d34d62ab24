import { describe, expect, it } from 'vitest';
import { durationEndsAt, endsWith, nudgePlan } from '../../../src/core/conversation.js';
import { noLimits } from '../records.js';

const rules = noLimits();
const T0 = Date.parse('2026-11-22T10:00:00Z');
const at = (s: number) => T0 + s * 1000;

describe('endsWith', () => {
  it('max_turns counts delivered messages since the last resume', () => {
    const r = { ...rules, max_turns: 3 };
    expect(endsWith({ message_counter: 2 }, { from: 'a', content: 'x' }, r)).toBeNull();
    expect(endsWith({ message_counter: 3 }, { from: 'a', content: 'x' }, r)).toBe('max_turns');
    expect(endsWith({ message_counter: 5, turns_base: 3 }, { from: 'a', content: 'x' }, r)).toBeNull();
    expect(endsWith({ message_counter: 6, turns_base: 3 }, { from: 'a', content: 'x' }, r)).toBe('max_turns');
  });
  it('the stop phrase counts anywhere in the content, from stop_from only (default: everyone)', () => {
    const r = { ...rules, stop_phrase: '[[DONE]]' };
    expect(endsWith({ message_counter: 1 }, { from: 'a', content: 'ok [[DONE]] bye' }, r)).toBe('stop_phrase');
    expect(endsWith({ message_counter: 1 }, { from: 'a', content: 'ok [[DONE] bye' }, r)).toBeNull();
    expect(endsWith({ message_counter: 1 }, { from: 'a', content: '[[DONE]]' }, { ...r, stop_from: ['b'] })).toBeNull();
    expect(endsWith({ message_counter: 1 }, { from: 'b', content: '[[DONE]]' }, { ...r, stop_from: ['b'] })).toBe(
      'stop_phrase',
    );
  });
  it('nothing configured: never ends by itself', () => {
    expect(endsWith({ message_counter: 10_000 }, { from: 'a', content: '[[DONE]]' }, rules)).toBeNull();
  });
});

describe('durationEndsAt', () => {
  it('counts from started_at; none when unset, off, or already finished', () => {
    const p = { message_counter: 0, started_at: new Date(T0).toISOString() };
    expect(durationEndsAt(p, { ...rules, max_duration_s: 60 })).toBe(at(60));
    expect(durationEndsAt(p, rules)).toBeNull();
    expect(
      durationEndsAt({ ...p, finished: { reason: 'ended', at: '' } }, { ...rules, max_duration_s: 60 }),
    ).toBeNull();
  });
});

describe('nudgePlan', () => {
  const r = { ...rules, timeout_s: 10, max_nudges: 3 };
  const p = (nudges: number, extra = {}) => ({
    message_counter: 1,
    turn_started_at: new Date(T0).toISOString(),
    nudges,
    ...extra,
  });
  it('reminders come after T, then 2T, then 4T more; then stalled after one more gap (8T)', () => {
    expect(nudgePlan(p(0), at(9.9), r)).toEqual({ action: 'none', at: at(10) });
    expect(nudgePlan(p(0), at(10), r)).toEqual({ action: 'nudge', n: 1 });
    expect(nudgePlan(p(1), at(29), r)).toEqual({ action: 'none', at: at(30) });
    expect(nudgePlan(p(1), at(30), r)).toEqual({ action: 'nudge', n: 2 });
    expect(nudgePlan(p(2), at(70), r)).toEqual({ action: 'nudge', n: 3 });
    expect(nudgePlan(p(3), at(149), r)).toEqual({ action: 'none', at: at(150) });
    expect(nudgePlan(p(3), at(150), r)).toEqual({ action: 'stall' });
  });
  it('max_nudges 0 stalls after one timeout without a reminder', () => {
    expect(nudgePlan(p(0), at(10), { ...r, max_nudges: 0 })).toEqual({ action: 'stall' });
  });
  it('never when off, finished, or already stalled', () => {
    expect(nudgePlan(p(0), at(1e6), rules)).toEqual({ action: 'none', at: null });
    expect(nudgePlan(p(0, { stalled: true }), at(1e6), r)).toEqual({ action: 'none', at: null });
    expect(nudgePlan(p(0, { finished: { reason: 'ended', at: '' } }), at(1e6), r)).toEqual({
      action: 'none',
      at: null,
    });
  });
});
