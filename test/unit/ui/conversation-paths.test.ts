import { describe, expect, it } from 'vitest';
import type { Listing } from '../../../src/app/status/list.js';
import { keyOf } from '../../../src/app/machine/registry.js';
import { conversationId, conversationPath, routeOf } from '../../../src/ui/conversation-paths.js';
import { overviewOf } from '../../../src/ui/overview.js';

describe('conversation paths', () => {
  it('gives each registry key a stable 12-digit id of its own', () => {
    const a = conversationId('files /home/me/a/messages');
    expect(a).toMatch(/^[0-9a-f]{12}$/);
    expect(conversationId('files /home/me/a/messages')).toBe(a);
    expect(conversationId('files /home/me/b/messages')).not.toBe(a);
    expect(conversationId('postgres /home/me/a/config.json')).not.toBe(a);
    expect(conversationPath(a)).toBe(`/c/${a}/`);
  });

  it('routes a conversation prefix, the overview and the rest', () => {
    expect(routeOf('/c/0123456789ab/')).toEqual({ kind: 'conversation', id: '0123456789ab', rest: '/' });
    expect(routeOf('/c/0123456789ab/api/send')).toEqual({
      kind: 'conversation',
      id: '0123456789ab',
      rest: '/api/send',
    });
    expect(routeOf('/c/0123456789ab')).toEqual({ kind: 'redirect', to: '/c/0123456789ab/' });
    expect(routeOf('/all')).toEqual({ kind: 'overview', rest: '/' });
    expect(routeOf('/all/')).toEqual({ kind: 'overview', rest: '/' });
    expect(routeOf('/all/api/stream')).toEqual({ kind: 'overview', rest: '/api/stream' });
    expect(routeOf('/')).toEqual({ kind: 'root', path: '/' });
    expect(routeOf('/api/snapshot')).toEqual({ kind: 'root', path: '/api/snapshot' });
    // Not an id: the root's to answer (a 404), never a conversation or a redirect elsewhere.
    for (const p of ['/c/', '/c/XYZ/', '/c/0123456789abc/', '/c/../etc', '/allx', '/c//evil.example/'])
      expect(routeOf(p)).toEqual({ kind: 'root', path: p });
  });

  it("links each row of baton ls's listing to its conversation's view", () => {
    const listing: Listing = {
      registry: '/state/baton',
      daemon: null,
      problem: null,
      conversations: [
        {
          folder: '/p/a',
          config: '/p/a/config.json',
          message_dir: '/p/a/messages',
          bus: 'files',
          skipped: null,
          ok: false,
          problem: 'gone',
        },
        {
          folder: '/p/b',
          config: '/p/b/config.json',
          message_dir: '/p/b/messages',
          bus: 'postgres',
          skipped: null,
          ok: true,
          conversation: 'b',
          policy: 'strict_alternation',
          turn: 'claude1',
          seconds_in_turn: 3,
          messages: 7,
          run: 'running',
          daemon_pid: 42,
          waiting: 0,
        },
      ],
    };
    const o = overviewOf(listing, 'abc');
    const ids = [
      keyOf({ ...listing.conversations[0]!, home: '/p/a' }),
      keyOf({ ...listing.conversations[1]!, home: '/p/b' }),
    ];
    expect(ids).toEqual(['files /p/a/messages', 'postgres /p/b/config.json']);
    expect(o.conversations.map((r) => [r.id, r.path])).toEqual(
      ids.map((k) => [conversationId(k), `/c/${conversationId(k)}/`]),
    );
    expect(o.conversations[1]).toMatchObject({ messages: 7, turn: 'claude1', run: 'running' });
    expect(o.home).toBe('abc');
    expect(o.registry).toBe('/state/baton');
  });
});
