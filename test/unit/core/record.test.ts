/**
 * core/record.ts: how an archive record is made and stamped, once for every bus. The daemon's fields win
 * over what an agent wrote; a record is stamped once and keeps its first stamp; a receipt from the agent's
 * hook says the hook, not the screen, confirmed it.
 */
import { describe, expect, it } from 'vitest';
import type { Message } from '../../../src/core/message.js';
import {
  byDelivery,
  amended,
  isRecordName,
  messageRecord,
  personRecord,
  stamped,
  withReceipt,
} from '../../../src/core/record.js';
import type { Decision } from '../../../src/core/turns.js';
import { aRecord } from '../records.js';

const decision: Extract<Decision, { action: 'deliver' }> = {
  action: 'deliver',
  id: 'msg_0007',
  reply_to: 'msg_0006',
  to: 'b',
  next: { current_turn: 'b', last_message_id: 'msg_0007', message_counter: 7, pending_reply_to: 'msg_0007' },
};
const route = { direction: 'a_to_b', from: 'a', to: 'b', file: '20260101-hello.json' };
const RECEIVED = '2026-01-01T00:00:00.000Z';

const unstamped = aRecord;

describe("an agent's message as archived", () => {
  it('takes its ID and reply_to from the turn step, its route from the folder, and is not delivered yet', () => {
    const message: Message = { content: 'hello', type: 'question' };
    expect(messageRecord({ message, route, decision, receivedAt: RECEIVED })).toStrictEqual({
      id: 'msg_0007',
      reply_to: 'msg_0006',
      sender: 'a',
      receiver: 'b',
      type: 'question',
      content: 'hello',
      direction: 'a_to_b',
      source_file: '20260101-hello.json',
      received_at: RECEIVED,
      delivered_at: null,
    });
  });

  it('keeps the fields an agent added of its own', () => {
    const message: Message = { content: 'hi', type: 'task', subject: 'plan', priority: 'high', data: { n: 1 } };
    const r = messageRecord({ message, route, decision, receivedAt: RECEIVED });
    expect(r).toMatchObject({ subject: 'plan', priority: 'high', data: { n: 1 } });
  });

  it("the daemon's route and times win over what the agent wrote for them", () => {
    const message: Message = {
      content: 'hi',
      type: 'message',
      sender: 'mallory',
      receiver: 'nobody',
      direction: 'x_to_y',
      source_file: 'forged.json',
      received_at: '1999-01-01T00:00:00.000Z',
      delivered_at: '1999-01-01T00:00:01.000Z',
    };
    const r = messageRecord({ message, route, decision, receivedAt: RECEIVED });
    expect(r).toMatchObject({
      sender: 'a',
      receiver: 'b',
      direction: 'a_to_b',
      source_file: '20260101-hello.json',
      received_at: RECEIVED,
      delivered_at: null,
    });
  });

  it("the daemon's extra fields go in, but never make a record look delivered", () => {
    const message: Message = { content: 'hi', type: 'message' };
    const extra = { approved_by: 'req-1', delivered_at: 'never', received_at: 'never' };
    const r = messageRecord({ message, route, decision, receivedAt: RECEIVED, extra });
    expect(r).toMatchObject({ approved_by: 'req-1', received_at: RECEIVED, delivered_at: null });
  });
});

describe("a person's message as archived", () => {
  it('comes from the user, replies to nothing, and names the request that made it', () => {
    const r = personRecord({
      id: 'user_0003',
      to: 'b',
      content: 'please stop',
      type: 'message',
      request: 'req-9.json',
      receivedAt: RECEIVED,
    });
    expect(r).toStrictEqual({
      id: 'user_0003',
      reply_to: null,
      sender: 'user',
      receiver: 'b',
      type: 'message',
      content: 'please stop',
      direction: 'user',
      source_file: 'req-9.json',
      received_at: RECEIVED,
      delivered_at: null,
      request: 'req-9.json',
    });
  });

  it('carries what the daemon adds (a kick-off)', () => {
    const p = { id: 'user_0001', to: 'a', content: 'topic', type: 'task', request: 'r', receivedAt: RECEIVED };
    expect(personRecord({ ...p, extra: { kickoff: true } })).toMatchObject({ kickoff: true, type: 'task' });
  });
});

describe('stamping a record', () => {
  it('records when and how its submit was confirmed', () => {
    const r = unstamped();
    expect(stamped(r, 'screen', false, '2026-01-01T00:00:05.000Z')).toStrictEqual({
      ...r,
      delivered_at: '2026-01-01T00:00:05.000Z',
      confirmed: 'screen',
    });
    expect(r.delivered_at).toBeNull();
  });

  it('says it was redelivered only when it was', () => {
    expect(stamped(unstamped(), 'not_checked', true, 'T')).toMatchObject({ redelivered: true });
    expect(stamped(unstamped(), 'not_checked', false, 'T')).not.toHaveProperty('redelivered');
  });

  it('a stamped record keeps its first stamp', () => {
    const first = stamped(unstamped(), 'screen', false, '2026-01-01T00:00:05.000Z');
    const again = stamped(first, 'screen_after_second_enter', true, '2026-01-01T00:09:00.000Z');
    expect(again).toBe(first);
    expect(again).toMatchObject({ delivered_at: '2026-01-01T00:00:05.000Z', confirmed: 'screen' });
    expect(again).not.toHaveProperty('redelivered');
  });
});

describe('a receipt from the agent’s hook', () => {
  const received = { at: '2026-01-01T00:00:04.000Z', intact: true, prompt_id: 'p1' };

  it('confirms the record by the hook, whatever the screen said', () => {
    const r = stamped(unstamped(), 'screen', false, 'T');
    expect(withReceipt(r, received)).toStrictEqual({ ...r, received, confirmed: 'hook' });
    expect(withReceipt(r, { at: 'T', intact: false })).toMatchObject({
      confirmed: 'hook',
      received: { intact: false },
    });
  });

  it('no receipt leaves the record as it is', () => {
    const r = stamped(unstamped(), 'screen', false, 'T');
    expect(withReceipt(r, undefined)).toBe(r);
  });
});

describe('archive names and order', () => {
  it('an archive file is msg_NNNN.json or user_NNNN.json, nothing else', () => {
    for (const n of ['msg_0001.json', 'user_0001.json', 'msg_10000.json']) expect(isRecordName(n), n).toBe(true);
    for (const n of ['msg_0001', 'msg_001.json', 'msg_0001.json.tmp', '.json', 'state.json', 'msg_0001.JSON'])
      expect(isRecordName(n), n).toBe(false);
  });

  it('records go in the order they reached the panes; one not delivered counts from when it came', () => {
    const r = (id: string, received_at: string, delivered_at: string | null) => ({ id, received_at, delivered_at });
    const records = [
      r('msg_0002', '2026-01-01T00:00:02Z', '2026-01-01T00:00:09Z'),
      r('user_0001', '2026-01-01T00:00:05Z', '2026-01-01T00:00:06Z'),
      r('msg_0001', '2026-01-01T00:00:01Z', '2026-01-01T00:00:03Z'),
      r('msg_0003', '2026-01-01T00:00:07Z', null),
    ];
    expect([...records].sort(byDelivery).map((x) => x.id)).toEqual(['msg_0001', 'user_0001', 'msg_0003', 'msg_0002']);
  });

  it('at the same moment, the counter decides, as a number', () => {
    const at = '2026-01-01T00:00:01Z';
    const records = [
      { id: 'msg_10000', received_at: at, delivered_at: at },
      { id: 'msg_9999', received_at: at, delivered_at: at },
    ];
    expect([...records].sort(byDelivery).map((x) => x.id)).toEqual(['msg_9999', 'msg_10000']);
  });
});

describe('messageRecord: the turn step owns the ID', () => {
  it("the turn step's ID and reply_to win over an agent's own", () => {
    const message = { content: 'hi', type: 'message', id: 'msg_9999', reply_to: 'msg_0001' } as Message;
    const decision = {
      action: 'deliver' as const,
      id: 'msg_0007',
      reply_to: 'msg_0006',
      to: 'b',
      next: { current_turn: 'b', last_message_id: 'msg_0007', message_counter: 7, pending_reply_to: 'msg_0007' },
    };
    const route = { direction: 'a_to_b', from: 'a', to: 'b', file: 'm.json' };
    const r = messageRecord({ message, route, decision, receivedAt: '2026-01-01T00:00:00.000Z' });
    expect(r).toMatchObject({ id: 'msg_0007', reply_to: 'msg_0006' });
  });
});

describe("a person's note to all: each agent's delivery", () => {
  it('an amendment merges deliveries agent by agent and replaces the other fields', () => {
    const note = aRecord({ id: 'user_0001', receiver: 'all', deliveries: { a: { at: 'T1', confirmed: 'screen' } } });
    const b = amended(note, { deliveries: { b: { at: null } } });
    expect(b.deliveries).toEqual({ a: { at: 'T1', confirmed: 'screen' }, b: { at: null } });
    expect(amended(b, { deliveries: { b: { at: 'T2' } } }).deliveries).toEqual({
      a: { at: 'T1', confirmed: 'screen' },
      b: { at: 'T2' },
    });
    expect(amended(note, { confirmed: 'hook' })).toEqual({ ...note, confirmed: 'hook' });
  });
});
