/**
 * core/issues.ts: zod's issues as the one-line problems a person reads (config errors, corrupt states,
 * invalid messages), each naming the key path it is about.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { formatIssues } from '../../../src/core/issues.js';

const problems = (schema: z.ZodType, value: unknown): string[] => {
  const r = schema.safeParse(value);
  if (r.success) throw new Error('the value was accepted');
  return formatIssues(r.error.issues);
};

describe('a problem', () => {
  it('names its key path, dotted, array positions included', () => {
    const schema = z.object({ agents: z.object({ a: z.object({ kind: z.enum(['claude', 'codex']) }) }) });
    expect(problems(schema, { agents: { a: { kind: 'vim' } } })).toEqual([expect.stringMatching(/^agents\.a\.kind: /)]);
    expect(problems(z.object({ stop_from: z.array(z.string()) }), { stop_from: ['a', 7] })).toEqual([
      expect.stringMatching(/^stop_from\.1: /),
    ]);
  });

  it('about the whole value says "(top level)"', () => {
    expect(problems(z.object({}), 'text')).toEqual([expect.stringMatching(/^\(top level\): /)]);
  });

  it('every problem is one line of its own', () => {
    const schema = z.object({ a: z.string(), b: z.number() });
    const lines = problems(schema, { a: 1, b: 'x' });
    expect(lines).toHaveLength(2);
    expect(lines.map((l) => l.split(':')[0])).toEqual(['a', 'b']);
  });
});

describe('unknown keys', () => {
  it('are each named as unknown, under their path', () => {
    const schema = z.strictObject({ turns: z.strictObject({ max_turns: z.number() }) });
    expect(problems(schema, { turns: { max_turns: 1, max_turn: 2, maxTurns: 3 } })).toEqual([
      'turns.max_turn: unknown key; turns.maxTurns: unknown key',
    ]);
  });

  it('at the top level, with no path before them', () => {
    expect(problems(z.strictObject({}), { typo: 1 })).toEqual(['typo: unknown key']);
  });
});

describe('a record key that fails its own schema', () => {
  it('says why the key is wrong, not only that it is', () => {
    const names = z.record(z.string().regex(/^[a-z]+$/, 'agent names use lowercase letters'), z.unknown());
    expect(problems(z.object({ agents: names }), { agents: { Bad1: {} } })).toEqual([
      'agents.Bad1: agent names use lowercase letters',
    ]);
  });
});
