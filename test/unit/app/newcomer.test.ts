/**
 * A newcomer's first ten minutes, the pure pieces: "did you mean", JSON errors with line and column, what
 * `up` continues, the demo script and its ending, the kick-off and resume texts, and pausing in the turn
 * rules.
 */
import { describe, expect, it } from 'vitest';
import { jsonError } from '../../../src/config/load.js';
import { kickoffHint, resumeNotice } from '../../../src/core/compose.js';
import { DEMO_TURNS, endsWith, nudgePlan, rulesFor } from '../../../src/core/conversation.js';
import { continuation } from '../../../src/app/up/up.js';
import { demoLine, demoTopicLine } from '../../../src/demo/script.js';
import { closest, editDistance } from '../../../src/core/suggest.js';
import { decide } from '../../../src/core/turns.js';
import { noLimits } from '../records.js';

describe('did you mean', () => {
  it('finds the command or option a person meant, and nothing for a word that is not a typo', () => {
    const commands = [
      'init',
      'up',
      'start',
      'status',
      'post',
      'send',
      'log',
      'pause',
      'resume',
      'end',
      'down',
      'doctor',
      'ui',
    ];
    expect(closest('stauts', commands)).toBe('status');
    expect(closest('dmeo', ['demo', 'fresh', 'topic', 'config', 'help'])).toBe('demo');
    expect(closest('fol', ['follow', 'json', 'md'])).toBe('follow');
    expect(closest('frobnicate', commands)).toBeNull();
    expect(closest('x', ['json'])).toBeNull();
    expect(editDistance('ab', 'ba')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
  });
});

describe('config JSON errors', () => {
  it('say line and column instead of a character position', () => {
    const text = '{\n  "message_dir": "./m",\n}\n';
    let message = '';
    try {
      JSON.parse(text);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(jsonError(text, message)).toMatch(/at line 3, column 1$/);
    expect(jsonError('', 'Unexpected end of JSON input')).toBe('Unexpected end of JSON input');
  });
});

describe('what baton up continues', () => {
  const state = (extra: Record<string, unknown> = {}) => ({
    current_turn: 'b',
    last_message_id: 'msg_0020',
    message_counter: 20,
    pending_reply_to: 'msg_0020',
    ...extra,
  });
  it('a new folder, or one with no message, starts new', () => {
    expect(continuation(null, 0, false)).toEqual({ action: 'new' });
    expect(
      continuation({ ...state(), message_counter: 0, last_message_id: null, pending_reply_to: null }, 0, true),
    ).toEqual({ action: 'set_aside', why: '' });
  });
  it('says what it continues, and how to start anew', () => {
    const c = continuation(state(), 20, false);
    expect(c.action).toBe('continue');
    expect(c.action === 'continue' && c.note).toBe(
      'continuing a conversation of 20 messages (b has the turn and owes a reply to msg_0020); "baton up --fresh" starts a new one',
    );
  });
  it('real agents never inherit a demo conversation; the demo never joins real agents', () => {
    expect(continuation(state({ demo: true }), 20, false)).toMatchObject({ action: 'set_aside' });
    expect(continuation(state(), 20, true)).toMatchObject({ action: 'refuse' });
    expect(continuation(state({ demo: true }), 4, true).action).toBe('continue');
    expect(continuation(state({ demo: true, finished: { reason: 'max_turns', at: 'x' } }), 8, true)).toMatchObject({
      action: 'set_aside',
    });
  });
});

describe('the demo script', () => {
  it('is one conversation of DEMO_TURNS messages, each addressed to the agent it goes to, then nothing', () => {
    const agents = ['a1', 'a2', 'a3'];
    const lines = Array.from({ length: DEMO_TURNS }, (_, n) => demoLine(n, agents[n % 3]!, agents[(n + 1) % 3]!, 3)!);
    expect(new Set(lines).size).toBe(DEMO_TURNS);
    expect(lines[0]).toMatch(/^Hi a2, a1 here\./);
    expect(lines[2]).toMatch(/^Hi a1, a3 here\./); // the third agent greets the one it writes to
    expect(lines[3]).toMatch(/^a2: /);
    expect(lines.at(-1)).toContain('end of our demo conversation');
    expect(demoLine(DEMO_TURNS, 'a1', 'a2', 3)).toBeNull();
    expect(demoTopicLine('Talk about caching', 'a1', 'a2')).toContain('"Talk about caching"');
  });
  it('ends a demo conversation by max_turns unless the config sets its own', () => {
    const turns = noLimits();
    expect(rulesFor(turns, { demo: true }).max_turns).toBe(DEMO_TURNS);
    expect(rulesFor(turns, {}).max_turns).toBe(0);
    expect(rulesFor({ ...turns, max_turns: 3 }, { demo: true }).max_turns).toBe(3);
    expect(
      endsWith({ message_counter: DEMO_TURNS }, { from: 'a', content: 'x' }, rulesFor(turns, { demo: true })),
    ).toBe('max_turns');
  });
});

describe('kick-off, pause and resume texts', () => {
  const config = (policy: 'alternate' | 'round_robin' | 'handoff') => ({
    turns: { policy } as never,
    order: ['a', 'b', 'c'].slice(0, policy === 'alternate' ? 2 : 3),
  });
  it('the kick-off tells the holder to open the conversation through baton, under every policy', () => {
    expect(kickoffHint(config('alternate'), 'a', null)).toBe(
      '[baton] a person set this topic; you hold the first turn, so open the conversation: write to b with: baton post "<your message>"',
    );
    expect(kickoffHint(config('round_robin'), 'b', 'msg_0004')).toContain(
      'msg_0004 is waiting for your reply: write to c with',
    );
    expect(kickoffHint(config('handoff'), 'a', null)).toContain('baton post --to AGENT "<your message>" (AGENT: b, c)');
  });
  it('resume tells the holder what it owes and the others who holds the turn', () => {
    const st = { current_turn: 'b', pending_reply_to: 'msg_0007' };
    expect(resumeNotice(config('alternate'), 'b', st)).toMatch(
      /it is your turn, and msg_0007 is waiting for your reply\.\n\[baton\] reply to a with: baton post/,
    );
    expect(resumeNotice(config('alternate'), 'a', st)).toBe(
      '[baton] the conversation continues (a person resumed it): b has the turn. Wait for the next message.',
    );
  });
  it('a paused conversation holds every message and reminds nobody', () => {
    const s = {
      current_turn: 'a',
      last_message_id: null,
      message_counter: 0,
      pending_reply_to: null,
      paused: { at: 'x' },
    };
    expect(decide(s, { from: 'a', to: 'b' }, { policy: 'alternate', agents: ['a', 'b'] })).toEqual({
      action: 'hold',
      reason: 'the conversation is paused; "baton resume" continues it',
    });
    expect(
      nudgePlan({ ...s, turn_started_at: '2020-01-01T00:00:00Z' }, Date.now(), {
        max_turns: 0,
        max_duration_s: 0,
        timeout_s: 1,
        max_nudges: 3,
      }),
    ).toEqual({ action: 'none', at: null });
  });
});
