import { describe, expect, it } from 'vitest';
import { validateMessage } from '../../../src/core/message.js';

const route = { from: 'claude1', to: 'claude2' };
const reason = (v: unknown) => {
  const r = validateMessage(v, route);
  return r.ok ? null : r.reason;
};

describe('validateMessage', () => {
  it('accepts the documented example and keeps unknown fields', () => {
    const r = validateMessage(
      {
        timestamp: '2025-11-21T18:00:00+09:00',
        sender: 'claude1',
        receiver: 'claude2',
        content: 'hi',
        type: 'message',
        mood: 'fine',
      },
      route,
    );
    expect(r).toEqual({ ok: true, message: expect.objectContaining({ content: 'hi', mood: 'fine', type: 'message' }) });
  });
  it('keeps every field as written, even one named "__proto__" (at the top and inside data)', () => {
    const r = validateMessage(JSON.parse('{"content":"x","__proto__":{"a":1},"data":{"__proto__":5,"b":[1]}}'), route);
    expect(r.ok && JSON.stringify(r.message)).toBe(
      '{"content":"x","__proto__":{"a":1},"data":{"__proto__":5,"b":[1]},"type":"message"}',
    );
  });

  it('content alone is enough; type defaults to message', () => {
    expect(validateMessage({ content: 'x' }, route)).toEqual({ ok: true, message: { content: 'x', type: 'message' } });
  });
  it('drops the fields the daemon owns (id, reply_to, times, redelivered…) when an agent writes them', () => {
    const r = validateMessage(
      {
        content: 'x',
        id: 'msg_9999',
        reply_to: 'msg_0001',
        delivered_at: 'x',
        received_at: 'y',
        redelivered: true,
        direction: 'd',
        source_file: 'f',
        // Read back by the daemon: a restart's pane, a turn's cost added to, a note's deliveries.
        typed_into: { id: '%1', pid: 1, server: 's' },
        turn_cost: { usd: 1 },
        deliveries: { a: { at: null } },
      },
      route,
    );
    expect(r.ok && r.message).toEqual({ content: 'x', type: 'message' });
  });
  it('timestamps must look like ISO-8601', () => {
    expect(reason({ content: 'x', timestamp: '2025-11-21T18:00:00+09:00' })).toBeNull();
    expect(reason({ content: 'x', timestamp: '2025-11-21T09:00:00.123Z' })).toBeNull();
    expect(reason({ content: 'x', timestamp: '1' })).toBe('timestamp: not an ISO-8601 time');
  });
  it('rejects with a reason that names the field', () => {
    expect(reason({})).toBe('content: required');
    expect(reason({ content: '' })).toBe('content: must not be empty');
    expect(reason({ content: 5 })).toBe('content: must be a string');
    expect(reason({ content: 'x', type: 'gossip' })).toMatch(/^type: /);
    expect(reason({ content: 'x', priority: 'asap' })).toMatch(/^priority: /);
    expect(reason({ content: 'x', data: [1] })).toMatch(/^data: /);
    expect(reason({ content: 'x', timestamp: 'yesterday' })).toBe('timestamp: not an ISO-8601 time');
  });
  it('rejects JSON that is not an object', () => {
    expect(reason([1, 2])).toMatch(/JSON object, not an array/);
    expect(reason('text')).toMatch(/not string/);
    expect(reason(null)).toMatch(/not null/);
  });
  it('rejects a sender or receiver that does not match the folder', () => {
    expect(reason({ content: 'x', sender: 'claude2' })).toMatch(/^sender: "claude2" does not match/);
    expect(reason({ content: 'x', receiver: 'claude3' })).toMatch(/^receiver: "claude3" does not match/);
  });
});
