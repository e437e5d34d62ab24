import { describe, expect, it } from 'vitest';
import { decide, initialState, type Rules } from '../../../src/core/turns.js';
import { waitText, whyWaiting, type WaitFacts } from '../../../src/core/waiting.js';

const rules: Rules = { policy: 'alternate', agents: ['sh1', 'sh2'] };
const here: WaitFacts = { daemon: true, remote: null, problem: null, approval: false };
const s0 = initialState('sh1');
const d12 = { from: 'sh1', to: 'sh2' };
const d21 = { from: 'sh2', to: 'sh1' };

describe('why a direction waits', () => {
  it('out of turn, whatever machine its receiver is on: never "runs on" for a file that is not in turn', () => {
    const away = { ...here, remote: { host: 'alpha', alive: true } };
    for (const facts of [here, away]) {
      const w = whyWaiting(s0, d21, rules, facts);
      expect(w).toEqual({ reason: 'out_of_turn', turn: 'sh1' });
      // The daemon's own words for the same file (its `held` event).
      const d = decide(s0, d21, rules);
      expect(d.action === 'hold' && d.reason).toBe(waitText(w, d21));
    }
  });

  it('finished and paused before whose turn it is, as the daemon holds them', () => {
    const finished = { ...s0, finished: { reason: 'max_turns' as const, at: 'x' } };
    expect(whyWaiting(finished, d21, rules, here)).toEqual({ reason: 'finished', finished: 'max_turns' });
    expect(whyWaiting({ ...s0, paused: { at: 't' } }, d12, rules, here)).toEqual({ reason: 'paused', since: 't' });
  });

  it('in turn: the approval queue, then the machine that delivers it, then a daemon, then the pane', () => {
    expect(whyWaiting(s0, d12, rules, { ...here, approval: true }).reason).toBe('awaiting_approval');
    const away = whyWaiting(s0, d12, rules, { ...here, daemon: false, remote: { host: 'beta', alive: false } });
    expect(away).toEqual({ reason: 'other_machine', receiver: 'sh2', host: 'beta', daemon: false });
    expect(waitText(away, d12)).toBe('sh2 runs on beta, where no daemon is running ("baton up" there starts it)');
    expect(whyWaiting(s0, d12, rules, { ...here, daemon: false, problem: 'x' }).reason).toBe('no_daemon');
    const pane = whyWaiting(s0, d12, rules, { ...here, problem: 'pane %3 is dead' });
    expect(waitText(pane, d12)).toBe('sh2: pane %3 is dead');
    expect(whyWaiting(s0, d12, rules, here)).toEqual({ reason: 'in_turn' });
  });

  it('a message the policy never allows: the daemon rejects it', () => {
    const three: Rules = { policy: 'round_robin', agents: ['a', 'b', 'c'] };
    const w = whyWaiting(initialState('a'), { from: 'a', to: 'c' }, three, here);
    expect(w).toEqual({ reason: 'not_allowed', detail: 'under the round_robin policy a must send to b, not c' });
  });
});
