/**
 * core/restart.ts and core/sessions.ts: what an agent started again owes when it holds the turn — its
 * message again, flagged, when its model never got it (no receipt, or its client started new), else a
 * reminder — and which client session a hook's payload names.
 */
import { describe, expect, it } from 'vitest';
import { owedAfterRestart, restartReminder, type Situation } from '../../../src/core/restart.js';
import { changed, isSessionId, sessionOf } from '../../../src/core/sessions.js';

const base: Situation = {
  agent: 'b',
  holder: 'b',
  finished: false,
  paused: false,
  owed: { id: 'msg_0005', receiver: 'b', delivered: true, received: true },
  start: 'resumed',
  answered: false,
};

describe('what a restarted turn holder is owed', () => {
  it('resumed, its model got the message (a receipt came): a reminder naming it', () => {
    expect(owedAfterRestart(base)).toMatchObject({ action: 'remind', id: 'msg_0005' });
  });

  it('resumed, but no receipt ever came: the message again (its model never got it)', () => {
    const s = { ...base, owed: { ...base.owed!, received: false } };
    expect(owedAfterRestart(s)).toMatchObject({ action: 'redeliver', id: 'msg_0005' });
  });

  it('started new (no session, --fresh-agents, a kind that cannot resume): the message again, receipt or not', () => {
    expect(owedAfterRestart({ ...base, start: 'fresh' })).toMatchObject({ action: 'redeliver', id: 'msg_0005' });
  });

  it('a pane baton did not start: only a reminder (its text is never typed twice on a guess)', () => {
    const s = { ...base, start: 'unknown' as const, owed: { ...base.owed!, received: false } };
    expect(owedAfterRestart(s)).toMatchObject({ action: 'remind' });
  });

  it('nothing for an agent not holding the turn, one that answered, or a message still being delivered', () => {
    expect(owedAfterRestart({ ...base, holder: 'a' }).action).toBe('none');
    expect(owedAfterRestart({ ...base, answered: true }).action).toBe('none');
    expect(owedAfterRestart({ ...base, owed: { ...base.owed!, delivered: false } }).action).toBe('none');
    expect(owedAfterRestart({ ...base, owed: null }).action).toBe('none');
    expect(owedAfterRestart({ ...base, owed: { ...base.owed!, receiver: 'c' } }).action).toBe('none');
  });

  it('a finished or paused conversation: later, when it goes on', () => {
    expect(owedAfterRestart({ ...base, paused: true }).action).toBe('later');
    expect(owedAfterRestart({ ...base, finished: true, start: 'fresh' }).action).toBe('later');
  });

  it('the reminder names the message, its sender, how to read it, and how to answer', () => {
    const text = restartReminder({ agent: 'b', id: 'msg_0005', from: 'a', resumed: true, hint: 'reply with X' });
    expect(text).toMatch(/^\[baton\] b, your session was resumed: it is your turn, and msg_0005 from a /);
    expect(text).toContain('baton show msg_0005');
    expect(text.endsWith('\nreply with X')).toBe(true);
  });
});

describe("a client's session from its hook", () => {
  const at = '2026-11-28T00:00:00Z';

  it('is its session_id and transcript, with the kind and folder it ran in', () => {
    const p = { session_id: '01a22176-4893-7cf1-bd54-88064e1ca035', transcript_path: '/h/.codex/sessions/r.jsonl' };
    expect(sessionOf(p, { kind: 'codex', cwd: '/w', at })).toEqual({
      id: '01a22176-4893-7cf1-bd54-88064e1ca035',
      kind: 'codex',
      cwd: '/w',
      transcript: '/h/.codex/sessions/r.jsonl',
      at,
    });
  });

  it('only an ID shaped like the clients’ own (it goes onto a command line; Claude Code searches any other)', () => {
    for (const bad of ['nonsense-name', '1; rm -rf /', '', 7, null, '662dd966-c06b-4056-9cde-094d262dfa46 x'])
      expect(sessionOf({ session_id: bad }, { kind: 'claude', cwd: '/w', at }), String(bad)).toBeNull();
    expect(isSessionId('662DD966-C06B-4056-9CDE-094D262DFA46')).toBe(true);
  });

  it('is worth a write only when new or another one', () => {
    const s = sessionOf({ session_id: '662dd966-c06b-4056-9cde-094d262dfa46' }, { kind: 'claude', cwd: '/w', at })!;
    expect(changed(undefined, s)).toBe(true);
    expect(changed({ ...s, at: 'earlier' }, s)).toBe(false);
    expect(changed(s, { ...s, id: 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee' })).toBe(true);
  });
});

describe('a prompt that is a restart reminder', () => {
  it('names the message its turn answers (an automatic reply is posted as the reply to it)', async () => {
    const { remindedOf } = await import('../../../src/core/restart.js');
    const text = restartReminder({ agent: 'b', id: 'msg_0005', from: 'a', resumed: false, hint: 'h' });
    expect(remindedOf(text)).toBe('msg_0005');
    expect(remindedOf('[baton] msg_0005 from a\nhello')).toBeNull();
    expect(remindedOf('please look at msg_0005')).toBeNull();
  });
});
