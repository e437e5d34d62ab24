/**
 * app/post.ts and the way a post goes (bus/open.ts): what can be checked before a message is said to be
 * posted — the receiver, the turn policy — and where it goes: an agent of this machine into its folder
 * (on the PostgreSQL bus too: its machine's daemon relays it), another machine's agent into the database.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { composePost, postMessage } from '../../../src/app/post.js';
import { UsageError } from '../../../src/app/input.js';
import { postingFor } from '../../../src/bus/open.js';
import { parseConfig } from '../../../src/config/config.js';
import { loadConfig } from '../../../src/config/load.js';

const three = (extra: Record<string, unknown> = {}) =>
  parseConfig(
    {
      agents: { a: { kind: 'generic', command: 'x' }, b: { kind: 'generic', command: 'x', host: 'far' }, c: {} },
      directions: { a_to_b: ['a', 'b'], b_to_c: ['b', 'c'], c_to_a: ['c', 'a'], a_to_c: ['a', 'c'] },
      turns: { policy: 'round_robin' },
      ...extra,
    },
    '/p/config.json',
    '/p',
    { BATON_HOST: 'here' },
  );

describe('composing a post', () => {
  it('refuses a folder the policy never delivers, naming the receiver it must be', () => {
    const config = three();
    expect(() => composePost(config, { from: 'a', to: 'c', text: 'skip b' })).toThrow(
      new UsageError('under the round_robin policy a must send to b, not c (baton would reject it)'),
    );
    expect(composePost(config, { from: 'a', to: 'b', text: 'ok' }).direction.name).toBe('a_to_b');
  });

  it('names the agents when the receiver is not one of them', () => {
    expect(() => composePost(three(), { from: 'a', to: 'zed', text: 'hello?' })).toThrow(
      'a has no folder for messages to zed: there is no such agent (agents: a, b, c)',
    );
  });
});

describe('where a post goes', () => {
  const pgConfig = (dir: string) =>
    three({ message_dir: dir, bus: { kind: 'postgres', url: 'postgres://nobody@127.0.0.1:1/none' } });

  it('an agent of this machine: into its folder, on either bus — no database needed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'baton-post-'));
    const config = pgConfig(dir);
    expect(postingFor(config, 'a').via).toBe('folder');
    expect(postingFor(config, 'b').via).toBe('database'); // b runs on "far"
    expect(postingFor(three({ message_dir: dir }), 'b').via).toBe('folder'); // the files bus: always
    // With no URL (an agent's pane): its own messages go as ever; one for another machine's agent cannot.
    const paneConfig = { ...config, bus: { ...config.bus, url: '' } };
    expect(await postMessage(paneConfig, composePost(paneConfig, { from: 'b', text: 'for far' }))).toMatchObject({
      kind: 'refused',
      reason: expect.stringMatching(/^this shell has no URL for the database/),
    });
    const posted = await postMessage(config, composePost(config, { from: 'a', text: 'kept on this machine' }));
    expect(posted).toMatchObject({ kind: 'posted', via: 'folder', direction: { name: 'a_to_b' } });
    if (posted.kind !== 'posted') return;
    expect(readdirSync(join(dir, 'a_to_b'))).toEqual([posted.name]);
    expect(JSON.parse(readFileSync(posted.where, 'utf8'))).toMatchObject({ content: 'kept on this machine' });
  });

  it('what the daemon would reject is refused with its reason, and nothing is written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'baton-post-'));
    const config = three({ message_dir: dir, inbox: { max_bytes: 512 } });
    const posted = await postMessage(config, composePost(config, { from: 'c', text: 'x'.repeat(600) }));
    expect(posted).toMatchObject({
      kind: 'refused',
      reason: expect.stringMatching(/^\d+ bytes is over inbox.max_bytes \(512\)$/),
    });
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe("a config with no database URL (an agent's pane)", () => {
  it('loads for the commands that run in a pane, with an empty URL; for every other command it is a problem', () => {
    const dir = mkdtempSync(join(tmpdir(), 'baton-post-'));
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ bus: { kind: 'postgres' } }));
    const source = { file, baseDir: dir };
    const saved = process.env.BATON_BUS_URL;
    delete process.env.BATON_BUS_URL;
    try {
      expect(() => loadConfig(source)).toThrow(/bus\.url: the postgres bus needs a URL/);
      expect(loadConfig(source, { busUrl: 'optional' }).bus).toMatchObject({ kind: 'postgres', url: '' });
      // Any other problem is still one.
      writeFileSync(file, JSON.stringify({ bus: { kind: 'postgres' }, turns: { policy: 'nope' } }));
      expect(() => loadConfig(source, { busUrl: 'optional' })).toThrow(/turns\.policy/);
    } finally {
      if (saved !== undefined) process.env.BATON_BUS_URL = saved;
    }
  });
});
