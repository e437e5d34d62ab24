/**
 * core/state.ts: the stored state, parsed the same way by every bus. A state that cannot be trusted is
 * refused with words that name where it was, what is wrong, and the way out; the daemon never guesses.
 */
import { describe, expect, it } from 'vitest';
import { checkState, parseState, StateError } from '../../../src/core/state.js';

const base = {
  current_turn: 'a',
  last_message_id: 'msg_0004',
  message_counter: 4,
  pending_reply_to: 'msg_0004',
};
const text = (v: unknown) => JSON.stringify(v);

/** The error parseState throws for `stored`, or a failure when it throws none. */
function refusal(stored: string): StateError {
  try {
    parseState(stored, 'messages/state.json');
  } catch (err) {
    if (err instanceof StateError) return err;
    throw err;
  }
  throw new Error('the state was accepted');
}

describe('a state that can be trusted', () => {
  it('a pause by the loop guard keeps its reason and evidence (the PostgreSQL bus parses the same)', () => {
    const paused = { at: '2026-11-28T12:00:00.000Z', reason: 'loop', evidence: ['msg_0001', 'msg_0002'] };
    expect(checkState({ ...base, paused, loop_since: 2 }, 'row')).toEqual({ ...base, paused, loop_since: 2 });
    expect(() => checkState({ ...base, paused: { ...paused, evidence: ['nope'] } }, 'row')).toThrow(StateError);
  });
  it('the four keys of a conversation, as stored', () => {
    expect(parseState(text(base), 'state.json')).toEqual(base);
  });

  it('a new conversation: nothing said yet, nothing owed', () => {
    const fresh = { current_turn: 'a', last_message_id: null, message_counter: 0, pending_reply_to: null };
    expect(parseState(text(fresh), 'state.json')).toEqual(fresh);
  });

  it("baton's own bookkeeping, and keys it does not know, are kept", () => {
    const full = {
      ...base,
      updated_at: '2026-01-01T00:00:00.000Z',
      finished: { reason: 'max_tokens', at: '2026-01-01T00:01:00.000Z', note: 'budget' },
      stalled: false,
      nudges: 2,
      paused: null,
      demo: true,
      tokens: { total: 1500, by_agent: { a: 1000, b: 500 } },
      written_by: 'a later baton',
    };
    expect(parseState(text(full), 'state.json')).toEqual(full);
    expect(checkState({ ...base, finished: null }, 'row')).toMatchObject({ finished: null });
  });
});

describe('a state that cannot be trusted', () => {
  it('text that is not JSON says so, and where', () => {
    const err = refusal('{"current_turn": "a",');
    expect(err.name).toBe('StateError');
    expect(err).toBeInstanceOf(Error);
    expect(err.message).toMatch(/^messages\/state\.json is corrupt \(not JSON: /);
  });

  it('names the way out: rebuild it from the archive', () => {
    expect(refusal('').message).toContain('run "baton doctor --repair" to rebuild it from the archive');
    expect(refusal(text(null)).message).toContain('The daemon will not guess the turn');
  });

  it('an ID that is not an ID names its key and what an ID looks like', () => {
    const err = refusal(text({ ...base, last_message_id: 'msg_4' }));
    expect(err.message).toContain('(last_message_id: an ID like msg_0001)');
    expect(refusal(text({ ...base, pending_reply_to: 'user_0004' })).message).toContain('pending_reply_to: an ID like');
  });

  it('each required key is required', () => {
    for (const key of Object.keys(base)) {
      const rest = Object.fromEntries(Object.entries(base).filter(([k]) => k !== key));
      expect(refusal(text(rest)).message, key).toContain(`${key}:`);
    }
  });

  it('no turn holder, or a counter that is no count, is refused', () => {
    const bad = [
      { ...base, current_turn: '' },
      { ...base, message_counter: -1 },
      { ...base, message_counter: 4.5 },
      { ...base, message_counter: '4' },
      { ...base, nudges: -1 },
    ];
    for (const s of bad) expect(() => parseState(text(s), 'state.json'), text(s)).toThrow(StateError);
  });

  it('a finish for a reason baton does not know, or token counts below zero, are refused', () => {
    const finished = { reason: 'bored', at: '2026-01-01T00:00:00.000Z' };
    expect(refusal(text({ ...base, finished })).message).toContain('finished.reason:');
    const tokens = { total: 10, by_agent: { a: -10 } };
    expect(refusal(text({ ...base, tokens })).message).toContain('tokens.by_agent.a:');
  });

  it('every problem is named, not only the first', () => {
    const err = refusal(text({ ...base, current_turn: '', message_counter: -1 }));
    expect(err.message).toMatch(/\(current_turn: .+; message_counter: .+\)/);
  });

  it('a value that is no object is refused as a whole', () => {
    for (const v of [null, [], 'state', 4])
      expect(() => checkState(v, 'conversation row'), text(v)).toThrow(
        /^conversation row is corrupt \(\(top level\): /,
      );
  });
});
