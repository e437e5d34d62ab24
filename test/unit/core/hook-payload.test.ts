/**
 * core/hook-payload.ts: the same facts from three CLIs' hook payloads, and a Gemini turn's reply from its
 * transcript. The reply is kept exactly as the model wrote it; anything that is not a non-empty string is
 * no fact at all.
 */
import { describe, expect, it } from 'vitest';
import { factsOf, lastGeminiReply } from '../../../src/core/hook-payload.js';
import type { HookNote } from '../../../src/core/hook-note.js';

const note = (event: HookNote['event'], payload: Record<string, unknown>): HookNote => ({
  event,
  agent: 'a',
  at: '2026-01-01T00:00:00.000Z',
  payload,
});

describe("a hook note's facts", () => {
  it("Claude Code's prompt: the text, its prompt_id and where the transcript is", () => {
    const facts = factsOf('claude', note('prompt', { prompt: 'hi', prompt_id: 'p1', transcript_path: '/t/c.jsonl' }));
    expect(facts).toEqual({ prompt: 'hi', turn: 'p1', reply: null, replyFrom: 'payload', transcript: '/t/c.jsonl' });
  });

  it("Codex's turn is its turn_id, never a prompt_id", () => {
    expect(factsOf('codex', note('prompt', { prompt: 'hi', prompt_id: 'p1' })).turn).toBeNull();
    expect(factsOf('codex', note('prompt', { prompt: 'hi', turn_id: 't1' })).turn).toBe('t1');
    expect(factsOf('claude', note('prompt', { prompt: 'hi', turn_id: 't1' })).turn).toBeNull();
  });

  it('the final reply is kept exactly, with its surrounding blanks', () => {
    expect(factsOf('claude', note('stop', { last_assistant_message: '  done\n' })).reply).toBe('  done\n');
  });

  it('a value that is not a non-empty string is no fact', () => {
    for (const bad of [undefined, null, '', 0, 42, true, ['x'], { text: 'x' }]) {
      const payload = { prompt: bad, prompt_id: bad, turn_id: bad, last_assistant_message: bad, transcript_path: bad };
      for (const kind of ['claude', 'codex'])
        expect(factsOf(kind, note('stop', payload)), `${kind} ${String(bad)}`).toEqual({
          prompt: null,
          turn: null,
          reply: null,
          replyFrom: 'payload',
          transcript: null,
        });
    }
  });

  it('Gemini CLI: no turn id, and its reply is read from the transcript even when the payload has one', () => {
    const facts = factsOf(
      'gemini',
      note('stop', { prompt: 'p', prompt_id: 'p1', last_assistant_message: 'r', transcript_path: '/t/g.jsonl' }),
    );
    expect(facts).toEqual({ prompt: 'p', turn: null, reply: null, replyFrom: 'transcript', transcript: '/t/g.jsonl' });
    expect(factsOf('gemini', note('stop', {})).transcript).toBeNull();
  });
});

describe("a Gemini transcript's last reply", () => {
  it('an empty transcript, or one with prompts only, has none', () => {
    expect(lastGeminiReply([])).toBeNull();
    expect(lastGeminiReply([{ type: 'user', content: 'q' }])).toBeNull();
  });

  it('a new prompt not answered yet has none: the earlier turn’s reply is not its', () => {
    const entries = [
      { type: 'user', content: 'q1' },
      { type: 'gemini', content: 'answer one' },
      { type: 'user', content: 'q2' },
    ];
    expect(lastGeminiReply(entries)).toBeNull();
  });

  it('the latest turn’s last reply with text, kept exactly', () => {
    const entries = [
      { type: 'user', content: 'q' },
      { type: 'gemini', content: 'first part' },
      { type: 'gemini', content: '  second part\n' },
      { type: 'gemini', content: '   ' },
    ];
    expect(lastGeminiReply(entries)).toBe('  second part\n');
  });

  it('a reply with no prompt before it still counts', () => {
    expect(lastGeminiReply([{ type: 'gemini', content: 'hello' }])).toBe('hello');
  });

  it('entries that are not records, or of another type, are passed over', () => {
    const entries = [
      { type: 'user', content: 'q' },
      { type: 'gemini', content: 'the reply' },
      null,
      'text',
      { type: 'info', content: 'tool output' },
      { content: 'no type' },
    ];
    expect(lastGeminiReply(entries)).toBe('the reply');
  });

  it('content in parts is joined; parts without text, and content of another shape, give nothing', () => {
    expect(
      lastGeminiReply([{ type: 'gemini', content: [{ text: 'a' }, { functionCall: {} }, null, { text: 'b' }] }]),
    ).toBe('ab');
    expect(lastGeminiReply([{ type: 'gemini', content: { text: 'not parts' } }])).toBeNull();
    expect(lastGeminiReply([{ type: 'gemini', content: [{ text: 7 }] }])).toBeNull();
  });
});
