/**
 * The machine's registry (app/machine/registry.ts): entries added, replaced and removed by message folder; a
 * file that does not parse reads as a problem, never as a crash. Writers killed mid-write:
 * test/integration/machine-registry-kill.test.ts (real processes, against dist/).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  entryOf,
  keyOf,
  readRegistry,
  register,
  registerOwn,
  stateDir,
  unregister,
  unregisterOwn,
} from '../../../src/app/machine/registry.js';
import { readFileSync } from 'node:fs';
import type { Config } from '../../../src/config/config.js';

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const config = (n: number) =>
  ({
    file: `/p/${n}/config.json`,
    baseDir: `/p/${n}`,
    messageDir: `/p/${n}/messages`,
    bus: { kind: 'files' },
  }) as Config;

describe('the machine registry', () => {
  it("keeps a list apart of conversations with a daemon of their own, which the machine's daemon never reads", async () => {
    dir = mkdtempSync(join(tmpdir(), 'baton-reg-'));
    await register(dir, entryOf(config(1), null));
    // Without one, the file is as it was (an older baton reads it the same).
    expect(JSON.parse(readFileSync(join(dir, 'conversations.json'), 'utf8')).own_daemons).toBeUndefined();
    await registerOwn(dir, entryOf(config(2), null));
    await registerOwn(dir, entryOf(config(2), '/tmp/s')); // refreshed, not twice
    const read = readRegistry(dir).registry;
    expect(read.conversations.map((e) => e.home)).toEqual(['/p/1']);
    expect(read.own_daemons.map((e) => [e.home, e.tmux])).toEqual([['/p/2', '/tmp/s']]);
    // Handed to the machine's daemon later: it leaves the list apart.
    await register(dir, entryOf(config(2), null));
    expect(readRegistry(dir).registry.own_daemons).toEqual([]);
    await registerOwn(dir, entryOf(config(3), null));
    await unregisterOwn(dir, keyOf(entryOf(config(3), null)));
    expect(readRegistry(dir).registry).toMatchObject({ own_daemons: [] });
    expect(readRegistry(dir).registry.conversations.map((e) => e.home)).toEqual(['/p/1', '/p/2']);
  });

  it('lives in $XDG_STATE_HOME/baton, else ~/.local/state/baton', () => {
    expect(stateDir({ XDG_STATE_HOME: '/x/state' })).toBe('/x/state/baton');
    expect(stateDir({ XDG_STATE_HOME: 'relative' })).toMatch(/\/\.local\/state\/baton$/);
  });

  it('adds, replaces and removes one conversation by its message folder', async () => {
    dir = mkdtempSync(join(tmpdir(), 'baton-reg-'));
    await register(dir, entryOf(config(1), '/tmp/s1'));
    await register(dir, entryOf(config(2), null));
    await register(dir, entryOf(config(1), '/tmp/s2'));
    const list = readRegistry(dir).registry.conversations;
    expect(list.map((e) => [e.home, e.tmux])).toEqual([
      ['/p/2', null],
      ['/p/1', '/tmp/s2'],
    ]);
    expect(await unregister(dir, keyOf(list[0]!))).toBe(true);
    expect(await unregister(dir, keyOf(list[0]!))).toBe(false);
    expect(readRegistry(dir).registry.conversations.map((e) => e.home)).toEqual(['/p/1']);
  });

  it('reads a file that does not parse as a problem', () => {
    dir = mkdtempSync(join(tmpdir(), 'baton-reg-'));
    writeFileSync(join(dir, 'conversations.json'), '{"version":1,"conv');
    const read = readRegistry(dir);
    expect(read.ok).toBe(false);
    expect(read.registry.conversations).toEqual([]);
  });
});
