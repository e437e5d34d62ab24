import { describe, expect, it } from 'vitest';
import { formatId, parseId } from '../../../src/core/ids.js';
import {
  allowedPairs,
  decide,
  expectedReceiver,
  initialState,
  type Rules,
  type TurnState,
} from '../../../src/core/turns.js';

const two: Rules = { policy: 'alternate', agents: ['claude1', 'claude2'] };
const three: Rules = { policy: 'round_robin', agents: ['plan', 'code', 'review'] };
const handoff: Rules = { policy: 'handoff', agents: ['plan', 'code', 'review'] };

describe('formatId / parseId', () => {
  it('pads to four digits and never truncates', () => {
    expect(formatId(1)).toBe('msg_0001');
    expect(formatId(42)).toBe('msg_0042');
    expect(formatId(9999)).toBe('msg_9999');
    expect(formatId(10000)).toBe('msg_10000');
    expect(formatId(123456)).toBe('msg_123456');
  });
  it('parses what it formats and nothing else', () => {
    for (const n of [1, 9999, 10000, 987654]) expect(parseId(formatId(n))).toBe(n);
    expect(parseId('msg_1')).toBeNull();
    expect(parseId('user_0001')).toBeNull();
    expect(parseId('msg_0001.json')).toBeNull();
  });
});

describe('decide: alternate', () => {
  const s0 = initialState('claude1');

  it('the first message gets msg_0001, reply_to null, and passes the turn', () => {
    const d = decide(s0, { from: 'claude1', to: 'claude2' }, two);
    expect(d).toEqual({
      action: 'deliver',
      id: 'msg_0001',
      reply_to: null,
      to: 'claude2',
      next: { current_turn: 'claude2', last_message_id: 'msg_0001', message_counter: 1, pending_reply_to: 'msg_0001' },
    });
  });

  it('a reply gets the next ID and reply_to = pending_reply_to', () => {
    const s1: TurnState = {
      current_turn: 'claude2',
      last_message_id: 'msg_0001',
      message_counter: 1,
      pending_reply_to: 'msg_0001',
    };
    const d = decide(s1, { from: 'claude2', to: 'claude1' }, two);
    expect(d.action).toBe('deliver');
    if (d.action !== 'deliver') return;
    expect(d.id).toBe('msg_0002');
    expect(d.reply_to).toBe('msg_0001');
    expect(d.next.current_turn).toBe('claude1');
  });

  it('holds a message from the agent whose turn it is not, and changes nothing', () => {
    const d = decide(s0, { from: 'claude2', to: 'claude1' }, two);
    expect(d.action).toBe('hold');
    if (d.action === 'hold') expect(d.reason).toMatch(/claude1's turn/);
  });

  it('counts past 9999 without truncating', () => {
    const s: TurnState = {
      current_turn: 'claude1',
      last_message_id: 'msg_9999',
      message_counter: 9999,
      pending_reply_to: 'msg_9999',
    };
    const d = decide(s, { from: 'claude1', to: 'claude2' }, two);
    expect(d.action === 'deliver' && d.id).toBe('msg_10000');
  });

  it('holds everything once the conversation has finished, but still rejects what can never be right', () => {
    const done = { ...initialState('claude1'), finished: { reason: 'max_turns' as const, at: '2026-11-22T00:00:00Z' } };
    expect(decide(done, { from: 'claude1', to: 'claude2' }, two)).toEqual({
      action: 'hold',
      reason: 'the conversation has finished (max_turns); "baton resume" continues it',
    });
    expect(decide(done, { from: 'claude1', to: 'nobody' }, two).action).toBe('reject');
  });

  it('does not mutate the state it is given', () => {
    const s = { ...s0 };
    decide(s, { from: 'claude1', to: 'claude2' }, two);
    expect(s).toEqual(s0);
  });

  it('twenty alternating messages chain their reply_to', () => {
    let s = s0;
    const agents = ['claude1', 'claude2'];
    let prev: string | null = null;
    for (let i = 0; i < 20; i++) {
      const from = agents[i % 2]!;
      const d = decide(s, { from, to: agents[(i + 1) % 2]! }, two);
      if (d.action !== 'deliver') throw new Error(`expected deliver, got ${d.action}`);
      expect(d.reply_to).toBe(prev);
      expect(d.id).toBe(formatId(i + 1));
      prev = d.id;
      s = d.next;
    }
  });
});

describe('decide: rejections', () => {
  const s0 = initialState('claude1');
  it('rejects unknown senders and receivers', () => {
    expect(decide(s0, { from: 'mallory', to: 'claude2' }, two)).toMatchObject({
      action: 'reject',
      reason: expect.stringMatching(/unknown sender "mallory"/),
    });
    expect(decide(s0, { from: 'claude1', to: 'nobody' }, two)).toMatchObject({
      action: 'reject',
      reason: expect.stringMatching(/unknown receiver/),
    });
  });
  it('rejects a message to oneself', () => {
    expect(decide(s0, { from: 'claude1', to: 'claude1' }, two).action).toBe('reject');
  });
  it('round_robin: a message to anyone but the next speaker is rejected naming the expected receiver', () => {
    const s = initialState('plan');
    const d = decide(s, { from: 'plan', to: 'review' }, three);
    expect(d).toMatchObject({ action: 'reject', reason: expect.stringContaining('must send to code') });
    // rejected even when it is not the sender's turn: such a file could never be delivered
    expect(decide(s, { from: 'code', to: 'plan' }, three)).toMatchObject({
      action: 'reject',
      reason: expect.stringContaining('must send to review'),
    });
  });
  it('round_robin: follows config order and wraps around', () => {
    let s = initialState('plan');
    const seen: string[] = [];
    for (const [from, to] of [
      ['plan', 'code'],
      ['code', 'review'],
      ['review', 'plan'],
      ['plan', 'code'],
    ] as const) {
      const d = decide(s, { from, to }, three);
      if (d.action !== 'deliver') throw new Error(d.action);
      seen.push(d.next.current_turn);
      s = d.next;
    }
    expect(seen).toEqual(['code', 'review', 'plan', 'code']);
  });
});

describe('allowedPairs', () => {
  it('follows the same rule as decide: next in order, or anyone else under handoff', () => {
    expect(allowedPairs(two)).toEqual([
      ['claude1', 'claude2'],
      ['claude2', 'claude1'],
    ]);
    expect(allowedPairs(three)).toEqual([
      ['plan', 'code'],
      ['code', 'review'],
      ['review', 'plan'],
    ]);
    expect(allowedPairs(handoff)).toHaveLength(6);
    for (const [from, to] of allowedPairs(three))
      expect(decide(initialState(from), { from, to }, three).action).toBe('deliver');
  });
});

describe('decide: handoff', () => {
  it('the speaker picks any other agent, who gets the turn', () => {
    const s = initialState('plan');
    const d = decide(s, { from: 'plan', to: 'review' }, handoff);
    expect(d).toMatchObject({ action: 'deliver', to: 'review', next: { current_turn: 'review' } });
    expect(expectedReceiver('plan', handoff)).toBeNull();
  });
  it('still holds messages from agents without the turn', () => {
    expect(decide(initialState('plan'), { from: 'code', to: 'plan' }, handoff).action).toBe('hold');
  });
});
