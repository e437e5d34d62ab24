/** What a notification on a conversation's channel asks of a daemon (bus/postgres/hints.ts hintOf). */
import { describe, expect, it } from 'vitest';
import { hintOf, rowHint, stateHint } from '../../src/bus/postgres/hints.js';

describe('PostgreSQL notifications as hints', () => {
  it('a stored message wakes its machine only, carrying its row when it fits', () => {
    const row = rowHint('c1_to_c2', 'reply.json', '{"content":"hi"}')!;
    expect(hintOf(`messages@beta#42 ${row}`, 'beta')).toEqual({
      kind: 'messages',
      row: { seq: '42', direction: 'c1_to_c2', file: 'reply.json', body: '{"content":"hi"}' },
    });
    expect(hintOf(`messages@beta#42 ${row}`, 'alpha')).toBeNull();
    expect(hintOf('messages@beta', 'beta')).toEqual({ kind: 'messages' });
    // A row that would not fit a notification is not carried: the daemon reads it.
    expect(rowHint('c1_to_c2', null, 'x'.repeat(8000))).toBeNull();
  });

  it('a malformed row is no row: the daemon reads the queue instead', () => {
    for (const bad of [
      'messages@beta#x {"direction":"d","file":null,"body":"b"}',
      'messages@beta#7 {not json',
      'messages@beta#7 {"direction":"d","file":3,"body":"b"}',
    ])
      expect(hintOf(bad, 'beta')).toEqual({ kind: 'messages', row: undefined });
  });

  it('a turn step wakes every other machine, not its own; events and replies wake no daemon', () => {
    expect(hintOf('moved@alpha', 'beta')).toEqual({ kind: 'messages' });
    expect(hintOf('moved@alpha', 'alpha')).toBeNull();
    // …carrying the state it saved and its version, so the other machine need not read it.
    const state = {
      current_turn: 'claude1',
      last_message_id: 'msg_0002',
      message_counter: 2,
      pending_reply_to: 'msg_0002',
    };
    expect(hintOf(`moved@alpha#7 ${stateHint(state)}`, 'beta')).toEqual({
      kind: 'messages',
      moved: { version: '7', state },
    });
    expect(hintOf(`moved@alpha#7 ${stateHint(state)}`, 'alpha')).toBeNull();
    expect(hintOf('moved@alpha#7 {cut', 'beta')).toEqual({ kind: 'messages', moved: undefined });
    expect(stateHint({ big: 'x'.repeat(8000) })).toBeNull();
    expect(hintOf('messages', 'alpha')).toEqual({ kind: 'messages' });
    expect(hintOf('requests', 'alpha')).toEqual({ kind: 'requests' });
    expect(hintOf('events', 'alpha')).toBeNull();
    expect(hintOf('reply', 'alpha')).toBeNull();
  });
});
