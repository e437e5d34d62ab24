/**
 * app/up/session-names.ts: the session names init writes differ for two projects in folders of one name
 * (a/review and b/review were both review-shell1), and a name `up` suggests is never one already taken — on
 * the tmux server, in this config, or by a conversation the machine's registry lists.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { projectHash, sessionSuggestion, takenSessions } from '../../../src/app/up/session-names.js';
import { parseConfig } from '../../../src/config/config.js';

const root = mkdtempSync(join(tmpdir(), 'baton-session-names-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('session names', () => {
  it('carry the folder, a hash of its path and the agent; two folders of one name differ', () => {
    const a = sessionSuggestion({ baseDir: '/home/x/a/review' }, { name: 'shell1' });
    const b = sessionSuggestion({ baseDir: '/home/x/b/review' }, { name: 'shell1' });
    expect(a).toBe(`review-${projectHash('/home/x/a/review')}-shell1`);
    expect(a).toMatch(/^review-[0-9a-f]{4}-shell1$/);
    expect(b).not.toBe(a);
    // Within tmux's rules (no "." or ":"), and stable for one path.
    expect(sessionSuggestion({ baseDir: '/p/my.proj: v2' }, { name: 'c1' })).toMatch(/^my-proj-v2-[0-9a-f]{4}-c1$/);
    expect(sessionSuggestion({ baseDir: '/home/x/a/review/' }, { name: 'shell1' })).toBe(a);
  });

  it('a suggestion is never one already taken', () => {
    const base = sessionSuggestion({ baseDir: '/r' }, { name: 'a' });
    expect(sessionSuggestion({ baseDir: '/r' }, { name: 'a' }, new Set([base]))).toBe(`${base}-2`);
    expect(sessionSuggestion({ baseDir: '/r' }, { name: 'a' }, new Set([base, `${base}-2`]))).toBe(`${base}-3`);
  });

  it("taken: the server's sessions, this config's, and those of the registry's other conversations", () => {
    const other = join(root, 'other');
    mkdirSync(other);
    writeFileSync(
      join(other, 'config.json'),
      JSON.stringify({ agents: { x: { session: 'other-x' }, y: { session: 'other-y' } } }),
    );
    const state = join(root, 'state');
    mkdirSync(state);
    const entry = (home: string, config: string | null) => ({
      config,
      home,
      message_dir: join(home, 'messages'),
      bus: 'files',
      tmux: null,
      added_at: '2026-01-01T00:00:00.000Z',
    });
    writeFileSync(
      join(state, 'conversations.json'),
      JSON.stringify({
        version: 1,
        conversations: [entry(other, join(other, 'config.json')), entry('/gone', '/gone/config.json')],
      }),
    );
    const mine = parseConfig({ agents: { a: {}, b: { session: 'mine-b' } } }, '/me/config.json', '/me', {
      BATON_HOST: 'here',
    });
    expect([...takenSessions(mine, ['running-1'], state)].sort()).toEqual(
      ['a', 'mine-b', 'other-x', 'other-y', 'running-1'].sort(),
    );
  });
});
