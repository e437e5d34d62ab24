/**
 * The turn step's decision (bus/postgres/turn-step.ts plan): on the state read and the waiting row read,
 * the record and the next state to commit — or a refusal by the turn rules, a row gone, a body that is no
 * valid message. Pure: the one-statement step commits what it returns.
 */
import { describe, expect, it } from 'vitest';
import type { Waiting } from '../../../../src/bus/bus.js';
import { waitingName } from '../../../../src/bus/postgres/rows.js';
import { plan, type Planning } from '../../../../src/bus/postgres/turn-step.js';
import type { Direction } from '../../../../src/config/config.js';
import type { State } from '../../../../src/core/state.js';
import { decide, initialState } from '../../../../src/core/turns.js';

const rules = { policy: 'alternate' as const, agents: ['claude1', 'claude2'] };
const c1: Direction = { name: 'c1_to_c2', from: 'claude1', to: 'claude2', dir: '/m/c1_to_c2' };
const WALL = Date.parse('2026-03-01T12:00:00.000Z');

function planning(over: { state?: State; row?: Planning['row']; seq?: number } = {}): Planning {
  const w: Waiting = {
    key: String(over.seq ?? 42),
    name: waitingName(over.seq ?? 42, 'reply.json'),
    direction: c1,
    firstSeen: 1000,
    ready: true,
    message: null,
  };
  return {
    state: over.state ?? initialState('claude1'),
    row:
      over.row === undefined
        ? { body: JSON.stringify({ content: 'hello', subject: 's' }), file: 'reply.json' }
        : over.row,
    input: { w, step: (s) => decide(s, c1, rules), extra: { delivery_ms: 5 }, firstSeen: 1000, generation: 3 },
    maxBytes: 1000,
    // 250 ms after the message was first seen.
    now: { wall: WALL, mono: 1250 },
  };
}

describe('the turn step plan (PostgreSQL bus)', () => {
  it('a message whose sender holds the turn: the record (received when first seen) and the turn passed', () => {
    const p = plan(planning());
    expect(p).toEqual({
      kind: 'go',
      record: {
        id: 'msg_0001',
        reply_to: null,
        content: 'hello',
        subject: 's',
        type: 'message',
        sender: 'claude1',
        receiver: 'claude2',
        direction: 'c1_to_c2',
        source_file: 'reply.json',
        delivery_ms: 5,
        received_at: '2026-03-01T11:59:59.750Z',
        delivered_at: null,
      },
      next: {
        current_turn: 'claude2',
        last_message_id: 'msg_0001',
        message_counter: 1,
        pending_reply_to: 'msg_0001',
        turn_started_at: '2026-03-01T12:00:00.000Z',
        nudges: 0,
        stalled: false,
      },
    });
    // The same input, the same plan: nothing in it reads a clock or the database.
    expect(plan(planning())).toEqual(p);
  });

  it('a message posted (no file name) is archived under its stored name', () => {
    const p = plan(planning({ row: { body: '{"content":"x"}', file: null }, seq: 7 }));
    expect(p.kind === 'go' && p.record.source_file).toBe('0000000007.posted.json');
  });

  it('refused by the turn rules before anything else, even when the row is gone', () => {
    const theirs = { ...initialState('claude1'), current_turn: 'claude2' };
    const refused = { kind: 'refused', decision: { action: 'hold', reason: "it is claude2's turn, not claude1's" } };
    expect(plan(planning({ state: theirs }))).toEqual(refused);
    expect(plan(planning({ state: theirs, row: null }))).toEqual(refused);
    const finished = {
      ...initialState('claude1'),
      finished: { reason: 'max_turns' as const, at: '2026-03-01T00:00:00Z' },
    };
    expect(plan(planning({ state: finished }))).toMatchObject({ kind: 'refused', decision: { action: 'hold' } });
  });

  it('a row gone (taken meanwhile) is gone; a body that is no valid message is invalid, with the reason', () => {
    expect(plan(planning({ row: null }))).toEqual({ kind: 'gone' });
    expect(plan(planning({ row: { body: '{not json', file: 'a.json' } }))).toMatchObject({
      kind: 'invalid',
      reason: expect.stringMatching(/^invalid JSON: /),
    });
    expect(plan(planning({ row: { body: JSON.stringify({ content: 'x'.repeat(2000) }), file: 'a.json' } }))).toEqual({
      kind: 'invalid',
      reason: '2014 bytes is over inbox.max_bytes (1000)',
    });
    expect(plan(planning({ row: { body: '{"content":""}', file: 'a.json' } }))).toMatchObject({ kind: 'invalid' });
  });
});
