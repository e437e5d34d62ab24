/**
 * core/tokens.ts: what one turn cost, from a Claude Code transcript. A turn is the prompt's entry and its
 * descendants by parentUuid (not line order), up to the next prompt; each API message counts once.
 */
import { describe, expect, it } from 'vitest';
import { addUsage, NO_USAGE, totalOf, turnUsage } from '../../../src/core/tokens.js';

const usage = (input: number, output: number, creation = 0, read = 0) => ({
  input_tokens: input,
  output_tokens: output,
  cache_creation_input_tokens: creation,
  cache_read_input_tokens: read,
});
const prompt = (uuid: string, promptId: string, parentUuid: string | null = null) => ({
  type: 'user',
  uuid,
  parentUuid,
  promptId,
});
const reply = (uuid: string, parentUuid: string, id: string, u: Record<string, unknown>) => ({
  type: 'assistant',
  uuid,
  parentUuid,
  message: { id, usage: u },
});
const done = (uuid: string, parentUuid: string) => ({ type: 'system', subtype: 'turn_duration', uuid, parentUuid });

describe('adding usage', () => {
  it('the total is every token read or written, cache included', () => {
    expect(totalOf({ input: 1, output: 20, cache_creation: 300, cache_read: 4000 })).toBe(4321);
    expect(totalOf(NO_USAGE)).toBe(0);
  });

  it('usage adds field by field, and no usage adds nothing', () => {
    const a = { input: 1, output: 2, cache_creation: 3, cache_read: 4 };
    const b = { input: 10, output: 20, cache_creation: 30, cache_read: 40 };
    expect(addUsage(a, b)).toEqual({ input: 11, output: 22, cache_creation: 33, cache_read: 44 });
    expect(addUsage(a, NO_USAGE)).toEqual(a);
    expect(addUsage(NO_USAGE, a)).toEqual(a);
  });
});

describe("a turn's usage", () => {
  it('a prompt with no reply yet has used nothing so far, and is not complete', () => {
    expect(turnUsage([prompt('u1', 'p1')], 'p1')).toEqual({ complete: false, usage: NO_USAGE });
  });

  it('only the turn_duration record completes a turn, not another system record', () => {
    const lines = [
      prompt('u1', 'p1'),
      reply('a1', 'u1', 'm1', usage(1, 1)),
      { type: 'system', subtype: 'stop_hook_summary', uuid: 's1', parentUuid: 'a1' },
    ];
    expect(turnUsage(lines, 'p1').complete).toBe(false);
    expect(turnUsage([...lines, done('d1', 's1')], 'p1').complete).toBe(true);
  });

  it('a prompt not in the transcript (yet) has no usage, whatever else is there', () => {
    const lines = [prompt('u1', 'p1'), reply('a1', 'u1', 'm1', usage(5, 5)), done('d1', 'a1')];
    expect(turnUsage(lines, 'p2')).toEqual({ complete: false, usage: null });
    expect(turnUsage([], 'p1')).toEqual({ complete: false, usage: null });
    // A prompt entry without its own uuid cannot be followed.
    expect(turnUsage([{ type: 'user', promptId: 'p1' }], 'p1')).toEqual({ complete: false, usage: null });
  });

  it('lines that are not entries are skipped, not fatal', () => {
    const lines = [null, 'text', 42, [], prompt('u1', 'p1'), undefined, reply('a1', 'u1', 'm1', usage(3, 4))];
    expect(turnUsage(lines, 'p1').usage).toEqual({ input: 3, output: 4, cache_creation: 0, cache_read: 0 });
  });

  it('follows parentUuid, not line order', () => {
    const lines = [
      prompt('u1', 'p1'),
      reply('a1', 'u1', 'm1', usage(100, 10, 1, 2)),
      { type: 'user', uuid: 't1', parentUuid: 'a1' },
      reply('a2', 't1', 'm2', usage(50, 5, 1, 2)),
      done('d1', 'a2'),
    ];
    const expected = { complete: true, usage: { input: 150, output: 15, cache_creation: 2, cache_read: 4 } };
    expect(turnUsage(lines, 'p1')).toEqual(expected);
    expect(turnUsage([...lines].reverse(), 'p1')).toEqual(expected);
  });

  it('entries on another branch of the transcript are not this turn’s, even between its lines', () => {
    const lines = [
      prompt('u1', 'p1'),
      reply('x1', 'elsewhere', 'mx', usage(1000, 1000)),
      reply('a1', 'u1', 'm1', usage(7, 3)),
      { type: 'assistant', uuid: 'x2', message: { id: 'my', usage: usage(1000, 0) } },
    ];
    expect(turnUsage(lines, 'p1').usage).toEqual({ input: 7, output: 3, cache_creation: 0, cache_read: 0 });
  });

  it('an entry that still carries the turn’s own promptId stays in the turn; the next prompt does not', () => {
    const lines = [
      prompt('u1', 'p1'),
      reply('a1', 'u1', 'm1', usage(1, 1)),
      { type: 'user', uuid: 't1', parentUuid: 'a1', promptId: 'p1' },
      reply('a2', 't1', 'm2', usage(2, 2)),
      prompt('u2', 'p2', 'a2'),
      reply('a3', 'u2', 'm3', usage(40, 40)),
      done('d2', 'a3'),
    ];
    expect(turnUsage(lines, 'p1')).toEqual({
      complete: false,
      usage: { input: 3, output: 3, cache_creation: 0, cache_read: 0 },
    });
    expect(turnUsage(lines, 'p2')).toEqual({
      complete: true,
      usage: { input: 40, output: 40, cache_creation: 0, cache_read: 0 },
    });
  });

  it('an assistant entry without a message id, or without usage, counts nothing', () => {
    const lines = [
      prompt('u1', 'p1'),
      { type: 'assistant', uuid: 'a1', parentUuid: 'u1', message: { usage: usage(9, 9) } },
      { type: 'assistant', uuid: 'a2', parentUuid: 'a1', message: { id: 'm2' } },
      { type: 'user', uuid: 'a3', parentUuid: 'a2', message: { id: 'm3', usage: usage(9, 9) } },
    ];
    expect(turnUsage(lines, 'p1').usage).toEqual(NO_USAGE);
  });

  it('a count that is not a finite number counts as zero', () => {
    const odd = { input_tokens: '12', output_tokens: Number.NaN, cache_creation_input_tokens: Infinity };
    const lines = [prompt('u1', 'p1'), reply('a1', 'u1', 'm1', { ...odd, cache_read_input_tokens: 5 })];
    expect(turnUsage(lines, 'p1').usage).toEqual({ input: 0, output: 0, cache_creation: 0, cache_read: 5 });
  });

  it('a transcript whose entries point back at each other ends, counting each entry once', () => {
    const lines = [
      prompt('u1', 'p1', 'a2'),
      reply('a1', 'u1', 'm1', usage(1, 1)),
      reply('a2', 'a1', 'm2', usage(2, 2)),
      reply('a2', 'a1', 'm3', usage(100, 100)),
    ];
    expect(turnUsage(lines, 'p1').usage).toEqual({ input: 3, output: 3, cache_creation: 0, cache_read: 0 });
  });
});
