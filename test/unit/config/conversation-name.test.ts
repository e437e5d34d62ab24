/**
 * The default conversation name (config/conversation-name.ts): readable — letters and digits of any script
 * kept — and injective, so two folders never share a conversation by accident; ASCII names as before.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/config.js';
import { CONVERSATION_NAME, conversationName } from '../../../src/config/conversation-name.js';

/** The default for a config in folder `dir`. */
const defaultOf = (dir: string) => {
  const c = parseConfig({ bus: { kind: 'postgres', url: 'postgres://x@db/baton' } }, `${dir}/config.json`, dir, {});
  return c.bus.kind === 'postgres' ? c.bus.conversation : null;
};

describe('the default conversation name', () => {
  it('keeps letters and digits of any script: 日本 and 中国 are two conversations', () => {
    expect(defaultOf('/work/日本')).toBe('日本');
    expect(defaultOf('/work/中国')).toBe('中国');
    expect(defaultOf('/work/ключ-2')).toBe('ключ-2');
    expect(defaultOf('/work/café')).toBe('café');
  });

  it('escapes everything else reversibly: review 42 and review_42 differ, % is escaped too', () => {
    expect(defaultOf('/work/review 42')).toBe('review%2042');
    expect(defaultOf('/work/review_42')).toBe('review_42');
    expect(conversationName('100%')).toBe('100%25');
    expect(conversationName('a/b@c 🐈')).toBe('a%2Fb%40c%20%F0%9F%90%88');
    for (const n of ['review 42', '100%', 'a/b@c 🐈', '日本', 'x%20y'])
      expect(decodeURIComponent(conversationName(n))).toBe(n);
  });

  it('names the old default kept unchanged are the same names now (their conversations go on)', () => {
    for (const n of ['proj', 'review-42', 'my_project', 'repo.v2', '.hidden', 'A0'])
      expect(conversationName(n)).toBe(n);
  });

  it('is injective over folder names, and every default is a valid explicit name', () => {
    const names = [
      '',
      ' ',
      '_',
      '%',
      '%20',
      '%25',
      '日本',
      '中国',
      '__',
      'a b',
      'a_b',
      'a%20b',
      'a%2520b',
      '🐈',
      '\u0301',
    ];
    const seen = new Map<string, string>();
    for (const a of names)
      for (const b of names) {
        const n = a + b;
        const out = conversationName(n);
        expect(seen.get(out) ?? n, `${JSON.stringify(n)} → ${out}`).toBe(n);
        seen.set(out, n);
        if (n) expect(CONVERSATION_NAME.test(out), out).toBe(true);
        expect(out).not.toMatch(/[/@]/);
      }
  });

  it('an explicit bus.conversation may be any name a default can be, and nothing with "/" or "@"', () => {
    const bus = (conversation: string) => ({ bus: { kind: 'postgres', url: 'postgres://x@db/baton', conversation } });
    for (const ok of ['日本', 'review%2042', '.x', 'a_b-c.d'])
      expect(parseConfig(bus(ok), '/p/config.json', '/p', {}).bus).toMatchObject({ conversation: ok });
    for (const bad of ['a/b', 'a@b', 'a b', '', 'x%2', 'x'.repeat(256)])
      expect(() => parseConfig(bus(bad), '/p/config.json', '/p', {}), bad).toThrow(
        /bus\.conversation: conversation names use/,
      );
  });
});
