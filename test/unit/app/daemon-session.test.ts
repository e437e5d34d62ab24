/**
 * app/up/daemon-session.ts: which tmux session `baton attach daemon` (or `watcher`) opens — the conversation's own
 * daemon's, else the machine's, else it says the machine's daemon runs in none (a service).
 */
import { describe, expect, it } from 'vitest';
import { daemonSession } from '../../../src/app/up/daemon-session.js';

const at = { messageDir: '/p/messages', machineDir: '/state/baton', machinePid: 42 };
const sessions = (entries: Array<[string, string]>) => new Map(entries.map(([n, owner]) => [n, { owner }]));

describe("the daemon's session", () => {
  it("the machine's, in baton-daemon or baton-daemon-<hash>; never another state folder's", () => {
    expect(
      daemonSession(
        at,
        sessions([
          ['baton-daemon', '/state/baton'],
          ['p-1a2b-c1', '/p/messages'],
        ]),
      ),
    ).toEqual({
      kind: 'session',
      name: 'baton-daemon',
      machine: true,
    });
    expect(
      daemonSession(
        at,
        sessions([
          ['baton-daemon', '/other/state'],
          ['baton-daemon-9f8e7d', '/state/baton'],
        ]),
      ),
    ).toEqual({ kind: 'session', name: 'baton-daemon-9f8e7d', machine: true });
  });

  it("the conversation's own daemon in watcher (or watcher-<folder>-<hash>) comes first", () => {
    expect(
      daemonSession(
        at,
        sessions([
          ['watcher', '/q/messages'],
          ['watcher-p-abc123', '/p/messages'],
          ['baton-daemon', '/state/baton'],
        ]),
      ),
    ).toEqual({ kind: 'session', name: 'watcher-p-abc123', machine: false });
  });

  it('a machine daemon in no session here (a service), or none at all', () => {
    expect(daemonSession(at, sessions([['watcher', '/q/messages']]))).toEqual({ kind: 'elsewhere', pid: 42 });
    expect(daemonSession({ ...at, machinePid: null }, sessions([['baton-daemon', '/state/baton']]))).toEqual({
      kind: 'none',
    });
  });
});
