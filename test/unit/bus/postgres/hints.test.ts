/**
 * Notifications on a conversation's channel (bus/postgres/hints.ts): the channel's name, the payloads a
 * store, a turn step and an update write (formatting), and what each asks of a daemon (parsing: hintOf).
 */
import { describe, expect, it } from 'vitest';
import { channelOf, hintOf, messagesFor, movedBy, rowHint, stateHint } from '../../../../src/bus/postgres/hints.js';
import { sqlFor } from '../../../../src/bus/postgres/sql/index.js';

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

describe('PostgreSQL notifications: channels and payloads as written', () => {
  it('a channel per conversation and schema: a short identifier LISTEN takes without quoting', () => {
    const ch = channelOf('review-42');
    expect(ch).toMatch(/^baton_[0-9a-f]{16}$/);
    expect(channelOf('review-42')).toBe(ch); // every machine computes the same one
    expect(channelOf('review-43')).not.toBe(ch);
    // The default schema keeps the channel it always had; another schema's is its own.
    expect(channelOf(sqlFor('baton').scoped('review-42'))).toBe(ch);
    expect(channelOf(sqlFor('team_b').scoped('review-42'))).not.toBe(ch);
    expect(channelOf('x'.repeat(128)).length).toBeLessThanOrEqual(63);
  });

  it('what a store, a turn step and an update write is what a daemon reads back', () => {
    expect(messagesFor('beta')).toBe('messages@beta');
    expect(movedBy('alpha')).toBe('moved@alpha');
    // The relay's NOTIFY: messages@HOST#SEQ {row} (the statement joins them: sql/relay.ts).
    const row = rowHint('c2_to_c1', null, '{"content":"ok"}');
    expect(JSON.parse(row!)).toEqual({ direction: 'c2_to_c1', file: null, body: '{"content":"ok"}' });
    expect(hintOf(`${messagesFor('beta')}#9 ${row}`, 'beta')).toEqual({
      kind: 'messages',
      row: { seq: '9', direction: 'c2_to_c1', file: null, body: '{"content":"ok"}' },
    });
    // A turn step's: moved@HOST#VERSION {state}; an update's: messages, for every daemon.
    expect(hintOf(`${movedBy('alpha')}#3 ${stateHint({ n: 1 })}`, 'beta')).toEqual({
      kind: 'messages',
      moved: { version: '3', state: { n: 1 } },
    });
    expect(hintOf('messages', 'beta')).toEqual({ kind: 'messages' });
  });

  it('a value is carried only while the payload stays under the 8000 bytes a notification holds', () => {
    const body = (n: number) => 'é'.repeat(n); // two bytes each: the limit is in bytes, not characters
    expect(rowHint('d', 'f.json', body(3800))).not.toBeNull();
    expect(rowHint('d', 'f.json', body(3900))).toBeNull();
    expect(Buffer.byteLength(stateHint({ s: body(3880) })!)).toBeLessThan(7800);
    expect(stateHint({ s: body(3900) })).toBeNull();
  });
});
