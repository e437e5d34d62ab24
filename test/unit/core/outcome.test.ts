import { describe, expect, it } from 'vitest';
import { closingPrompt, outcomeFile, OUTCOME_SHAPE } from '../../../src/core/outcome.js';
import { decide, initialState, type TurnState } from '../../../src/core/turns.js';

const rules = { policy: 'alternate' as const, agents: ['a', 'b'] };
const finished: TurnState = {
  ...initialState('a'),
  message_counter: 4,
  last_message_id: 'msg_0004',
  pending_reply_to: 'msg_0004',
  finished: { reason: 'max_turns', at: '2026-11-28T12:00:00.000Z' },
  closing: { agent: 'b', at: '2026-11-28T12:00:00.000Z', asked: true },
};

describe('the closing turn through a finish', () => {
  it('only the closing agent, only its outcome, only once — whoever holds the turn', () => {
    expect(decide(finished, { from: 'b', to: 'a', type: 'outcome' }, rules)).toMatchObject({
      action: 'deliver',
      id: 'msg_0005',
      reply_to: 'msg_0004',
    });
    expect(decide(finished, { from: 'b', to: 'a', type: 'message' }, rules).action).toBe('hold');
    expect(decide(finished, { from: 'a', to: 'b', type: 'outcome' }, rules).action).toBe('hold');
    const done = { ...finished, closing: { ...finished.closing!, outcome: 'msg_0005' } };
    expect(decide(done, { from: 'b', to: 'a', type: 'outcome' }, rules).action).toBe('hold');
    expect(decide({ ...finished, closing: null }, { from: 'b', to: 'a', type: 'outcome' }, rules).action).toBe('hold');
  });
  it('a running conversation: an outcome is an ordinary message under the turn rules', () => {
    const running = { ...finished, finished: null, current_turn: 'a' };
    expect(decide(running, { from: 'b', to: 'a', type: 'outcome' }, rules).action).toBe('hold');
    expect(decide(running, { from: 'a', to: 'b', type: 'outcome' }, rules).action).toBe('deliver');
  });
});

describe('what the closing agent is asked, and OUTCOME.md', () => {
  it('the fixed shape, the person prompt (sanitized), how to post it', () => {
    const t = closingPrompt({ agent: 'b', prompt: 'Sum up\x1b[2J the decision.', to: 'a' });
    expect(t).toContain(OUTCOME_SHAPE);
    expect(t).toContain('Sum up');
    expect(t).not.toContain('\x1b');
    expect(t).toContain('baton post --type outcome "<the outcome>"');
    expect(closingPrompt({ agent: 'b', to: null })).toContain('--to AGENT');
  });
  it('OUTCOME.md carries the answer and where it came from', () => {
    const f = outcomeFile(
      { id: 'msg_0005', sender: 'b', content: '## Decided\n- x\n', delivered_at: '2026-11-28T12:01:00.000Z' },
      'max_turns',
    );
    expect(f).toBe(
      '# Outcome\n\n## Decided\n- x\n\n---\nb, msg_0005, 2026-11-28T12:01:00.000Z; the conversation finished: max_turns\n',
    );
  });
});
