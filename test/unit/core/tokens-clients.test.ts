/**
 * A turn's usage, by model, from each client's own record of it — on trimmed real samples
 * (test/fixtures/tokens/): Claude Code 2.1.197's transcript, Codex 0.169.0's session log, Gemini CLI 0.61.0's
 * chat file, all three run offline against mocks that gave request N the usage input N·1000+234, cached
 * N·1000+78, output N·100+56 (and 9 cache writes for Anthropic, 7 thinking tokens for the others), so a sum
 * names the requests it added.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeTurn } from '../../../src/core/tokens.js';
import { codexTurn, codexUsage } from '../../../src/core/tokens-codex.js';
import { geminiMessages, geminiTurn } from '../../../src/core/tokens-gemini.js';

const sample = (name: string): unknown[] =>
  readFileSync(join(import.meta.dirname, '..', '..', 'fixtures', 'tokens', name), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as unknown);

describe('Claude Code: a turn by its prompt_id, by model', () => {
  const lines = sample('claude-transcript.jsonl');

  it('sums the requests of the turn (a tool call: two) under the model each names', () => {
    // Requests 3 and 4 (request 2 was the title request, which no transcript records).
    expect(claudeTurn(lines, '3f9262db-7040-4614-a8e0-c9037b3df5af')).toEqual({
      complete: true,
      parts: [
        {
          model: 'claude-opus-4-8',
          usage: { input: 3234 + 4234, output: 356 + 456, cache_creation: 18, cache_read: 3078 + 4078 },
        },
      ],
    });
  });

  it('leaves out the entry Claude Code writes itself at a resume (model <synthetic>, no request)', () => {
    const root = { type: 'user', uuid: 'u1', promptId: 'p1' };
    const synthetic = {
      type: 'assistant',
      uuid: 'a1',
      parentUuid: 'u1',
      message: { id: 'x', model: '<synthetic>', usage: { input_tokens: 0, output_tokens: 0 } },
    };
    expect(claudeTurn([root, synthetic], 'p1')).toEqual({ complete: false, parts: [] });
  });
});

describe('Codex: a turn by its turn_id, from the session log', () => {
  const lines = sample('codex-rollout.jsonl');

  it("takes the turn's running sum (two requests) and the model of its turn_context, complete at task_complete", () => {
    expect(codexTurn(lines, '01a221ef-78c7-7e71-a1af-ba557a553ba5')).toEqual({
      complete: true,
      // Requests 3 and 4: input counts the cached tokens, which are taken out of it.
      parts: [
        {
          model: 'gpt-6.1-sol',
          usage: { input: 7468 - 7156, output: 812, cache_creation: 0, cache_read: 3078 + 4078 },
        },
      ],
    });
  });

  it('a turn whose task_complete has not come is not complete; one not in the log is not there', () => {
    const turn = '01a221ef-8079-7610-abab-00031412038b';
    const cut = lines.filter((l) => JSON.stringify(l).includes('task_complete') === false);
    expect(codexTurn(cut, turn).complete).toBe(false);
    expect(codexTurn(cut, turn).parts?.[0]?.usage.cache_read).toBe(5078);
    expect(codexTurn(lines, 'no-such-turn')).toEqual({ complete: false, parts: null });
  });

  it('the model the hook named stands when the log names none', () => {
    const noContext = lines.filter((l) => (l as { type?: string }).type !== 'turn_context');
    expect(codexTurn(noContext, '01a221ef-6dc7-7312-94c4-d615aff5534e', 'from-hook').parts?.[0]?.model).toBe(
      'from-hook',
    );
  });

  it('counts written to the cache are taken out of the input as the cached ones are', () => {
    expect(
      codexUsage({ input_tokens: 100, cached_input_tokens: 30, cache_write_input_tokens: 20, output_tokens: 5 }),
    ).toEqual({ input: 50, output: 5, cache_creation: 20, cache_read: 30 });
    // A log the agent can write: nonsense counts are nothing, never negative.
    expect(codexUsage({ input_tokens: -5, cached_input_tokens: 'x', output_tokens: Number.NaN })).toEqual({
      input: 0,
      output: 0,
      cache_creation: 0,
      cache_read: 0,
    });
  });
});

describe('Gemini CLI: a turn by its prompt, from the chat file', () => {
  const lines = sample('gemini-chat.jsonl');
  const prompt = (n: number): string => {
    const texts = geminiMessages(lines)
      .filter((m) => m.type === 'user' && Array.isArray(m.content) && 'text' in (m.content[0] as object))
      .map((m) => (m.content as Array<{ text: string }>)[0]!.text);
    return texts[n]!;
  };

  it('sums every reply after the prompt (the tool call written twice counts once), thinking as output', () => {
    expect(geminiTurn(lines, prompt(1))).toEqual({
      complete: true,
      // Requests 2 (the tool call) and 3 (the answer after it); request 1 was the router's, recorded nowhere.
      parts: [
        {
          model: 'gemini-3.8-flash',
          usage: {
            input: 2234 - 2078 + (3234 - 3078),
            output: 256 + 7 + 356 + 7,
            cache_creation: 0,
            cache_read: 2078 + 3078,
          },
        },
      ],
    });
  });

  it('the next prompt ends a turn; a reply with a tool call still to answer leaves it open', () => {
    expect(geminiTurn(lines, prompt(2)).complete).toBe(true);
    const messages = geminiMessages(lines);
    const firstCall = messages.findIndex((m) => Array.isArray(m.toolCalls));
    expect(firstCall).toBeGreaterThan(0);
    expect(
      geminiTurn(
        lines.slice(0, lines.indexOf(lines.find((l) => JSON.stringify(l).includes('toolCalls'))!) + 1),
        prompt(1),
      ).complete,
    ).toBe(false);
  });

  it('a resume’s $set of every message replaces the list: nothing is counted twice', () => {
    const messages = geminiMessages(lines);
    const resumed = [...lines, { $set: { messages } }];
    expect(geminiTurn(resumed, prompt(1))).toEqual(geminiTurn(lines, prompt(1)));
  });

  it('a prompt that is not in the file is no turn (yet)', () => {
    expect(geminiTurn(lines, 'no such prompt')).toEqual({ complete: false, parts: null });
  });
});
