/** Named parameters (bus/postgres/sql/bind.ts): `:name` in a statement, values by name, `$n` for the server. */
import { describe, expect, it } from 'vitest';
import { bind, statement } from '../../../../src/bus/postgres/sql/bind.js';

describe('named parameters', () => {
  it('numbers each name once, in order of first use, and binds values by name', () => {
    const s = statement<{ conversation: string; id: string; n: number }>(
      'test.select',
      'SELECT 1 FROM t WHERE conversation = :conversation AND id = :id AND n > :n AND c2 = :conversation',
    );
    expect(s.text).toBe('SELECT 1 FROM t WHERE conversation = $1 AND id = $2 AND n > $3 AND c2 = $1');
    expect(s.names).toEqual(['conversation', 'id', 'n']);
    expect(bind(s, { n: 3, id: 'msg_0001', conversation: 'c' })).toEqual(['c', 'msg_0001', 3]);
  });

  it('leaves casts, literals, quoted identifiers and comments alone', () => {
    const s = statement<{ fields: string; g: number | null }>(
      'test.casts',
      `UPDATE "my:schema".t SET record = record || :fields::jsonb, note = 'at :noon' -- not :this
       WHERE (:g::bigint IS NULL OR g = :g) AND t::text <> 'it''s :x'`,
    );
    expect(s.names).toEqual(['fields', 'g']);
    expect(s.text).toContain(`"my:schema".t SET record = record || $1::jsonb, note = 'at :noon' -- not :this`);
    expect(s.text).toContain(`WHERE ($2::bigint IS NULL OR g = $2) AND t::text <> 'it''s :x'`);
    expect(bind(s, { fields: '{}', g: null })).toEqual(['{}', null]);
  });

  it('a missing value, a value the statement does not take, or a positional $n is an error naming the statement', () => {
    const s = statement<{ a: number; b: number }>('test.ab', 'SELECT :a + :b');
    expect(() => bind(s, { a: 1 } as { a: number; b: number })).toThrow('test.ab: no value for :b');
    expect(() => bind(s, { a: 1, b: undefined as unknown as number })).toThrow('test.ab: no value for :b');
    expect(() => bind(s, { a: 1, b: 2, c: 3 } as { a: number; b: number })).toThrow('test.ab: no :c in the statement');
    expect(() => statement('test.mixed', 'SELECT :a + $2')).toThrow('test.mixed: a positional $n in a named statement');
    // …but a dollar sign inside a literal is text.
    expect(statement('test.literal', `SELECT '$1' || :a`).text).toBe(`SELECT '$1' || $1`);
  });

  it('a statement without parameters binds an empty object to no values', () => {
    const s = statement<Record<string, never>>('test.none', 'SELECT now()');
    expect(s.text).toBe('SELECT now()');
    expect(bind(s, {})).toEqual([]);
  });
});
