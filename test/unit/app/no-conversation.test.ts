/**
 * app/status/no-conversation.ts: what `baton status` names in a folder with no config.json — the nearest
 * conversation below it (one the machine's daemon serves first, then a config.json one level down), else
 * `baton init` and, when the machine serves any, `baton ls`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { noConversationHint } from '../../../src/app/status/no-conversation.js';

const root = mkdtempSync(join(tmpdir(), 'baton-nowhere-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const registry = (dir: string, homes: string[]) => {
  mkdirSync(dir, { recursive: true });
  const conversations = homes.map((home) => ({
    config: join(home, 'config.json'),
    home,
    message_dir: join(home, 'messages'),
    bus: 'files',
    tmux: null,
    added_at: '2026-01-01T00:00:00.000Z',
  }));
  writeFileSync(join(dir, 'conversations.json'), JSON.stringify({ version: 1, conversations }));
  return dir;
};

describe('no conversation here', () => {
  it('names init, and ls when the machine serves conversations elsewhere', () => {
    const cwd = join(root, 'a');
    mkdirSync(cwd);
    expect(noConversationHint(cwd, join(root, 'no-state'))).toBe('"baton init" makes one here, or give --config FILE');
    expect(noConversationHint(cwd, registry(join(root, 's1'), ['/elsewhere/x', '/elsewhere/y']))).toBe(
      '"baton init" makes one here, or give --config FILE; "baton ls" lists the 2 conversations this machine\'s daemon serves',
    );
  });

  it("names a project one level down whose config.json is baton's, not another tool's", () => {
    const cwd = join(root, 'b');
    for (const [name, text] of [
      ['review', JSON.stringify({ agents: { x: {}, y: {} } })],
      ['webapp', JSON.stringify({ port: 8080 })],
    ] as const) {
      mkdirSync(join(cwd, name), { recursive: true });
      writeFileSync(join(cwd, name, 'config.json'), text);
    }
    expect(noConversationHint(cwd, join(root, 'no-state'))).toBe(
      'a conversation is below this folder: cd review && baton status',
    );
  });

  it("names the machine's conversations below this folder first", () => {
    const cwd = join(root, 'c');
    mkdirSync(cwd);
    const state = registry(join(root, 's2'), [join(cwd, 'p1'), '/elsewhere/x', join(cwd, 'deep', 'p2'), `${cwd}x`]);
    expect(noConversationHint(cwd, state)).toBe(
      "a conversation this machine's daemon serves is below this folder: cd p1 && baton status, or cd deep/p2 && baton status",
    );
  });
});
