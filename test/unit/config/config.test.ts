import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_CONFIG, parseConfig } from '../../../src/config/config.js';
import { locateConfig } from '../../../src/config/load.js';

const base = '/proj';
const problems = (raw: unknown): string[] => {
  try {
    parseConfig(raw, '/proj/config.json', base);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
};

describe('config: the shipped default', () => {
  it('resolves paths against the config folder and keeps the folder names', () => {
    const c = parseConfig(DEFAULT_CONFIG, '/proj/config.json', base);
    expect(c.messageDir).toBe('/proj/messages');
    expect(c.order).toEqual(['claude1', 'claude2']);
    expect(c.agents.claude1).toMatchObject({
      kind: 'claude',
      cwd: '/proj/agents/claude1',
      session: 'claude1',
      command: 'claude',
    });
    expect(c.directions).toEqual([
      { name: 'c1_to_c2', from: 'claude1', to: 'claude2', dir: '/proj/messages/c1_to_c2' },
      { name: 'c2_to_c1', from: 'claude2', to: 'claude1', dir: '/proj/messages/c2_to_c1' },
    ]);
    expect(c.firstTurn).toBe('claude1');
    // No Enter delay pinned: each agent gets its kind's rule (terminal/kinds.ts), as `baton init`'s projects do.
    expect(c.delivery.enter_delay_ms).toBeUndefined();
    expect(c.inbox).toEqual({ max_bytes: 1048576, settle_ms: 1000 });
  });

  it('is the config.json shipped at the top of the repository, which pins no default either', () => {
    const shipped = JSON.parse(readFileSync(new URL('../../../config.json', import.meta.url), 'utf8'));
    expect(parseConfig(shipped, '/proj/config.json', base)).toEqual(
      parseConfig(DEFAULT_CONFIG, '/proj/config.json', base),
    );
    expect(shipped).toEqual(DEFAULT_CONFIG);
  });
});

describe("config: the original tool's three keys", () => {
  it('still load, with claude1/claude2 as the agents', () => {
    const c = parseConfig(
      { message_dir: './messages', c1_to_c2: 'c1_to_c2', c2_to_c1: 'c2_to_c1' },
      '/proj/config.json',
      base,
    );
    expect(c.order).toEqual(['claude1', 'claude2']);
    expect(c.directions.map((d) => [d.name, d.from, d.to])).toEqual([
      ['c1_to_c2', 'claude1', 'claude2'],
      ['c2_to_c1', 'claude2', 'claude1'],
    ]);
    expect(c.turns.policy).toBe('alternate');
  });
  it('an empty object is a valid config (all defaults)', () => {
    const c = parseConfig({}, null, base);
    expect(c.directions.map((d) => d.name)).toEqual(['claude1_to_claude2', 'claude2_to_claude1']);
  });
});

describe('config: every documented key is accepted', () => {
  it('turns.*, inbox.*, delivery.*, kind, session, target', () => {
    const c = parseConfig(
      {
        agents: {
          a: { kind: 'codex', command: 'codex', session: 'work-a' },
          b: { kind: 'shell', target: 'work:1.0' },
          c: { kind: 'gemini', target: '%3' },
        },
        turns: {
          policy: 'round_robin',
          max_turns: 10,
          timeout_s: 30,
          stop_phrase: '[[DONE]]',
          stop_from: ['a'],
          max_duration_s: 600,
          max_nudges: 2,
          moderated: true,
        },
        inbox: { max_bytes: 1000, settle_ms: 300 },
        delivery: { enter_delay_ms: 0, template: '{header}\n{content}' },
      },
      null,
      base,
    );
    expect(c.agents.b!.target).toBe('=work:1.0');
    expect(c.agents.c!.target).toBe('%3');
    expect(c.directions.map((d) => d.name)).toEqual(['a_to_b', 'b_to_c', 'c_to_a']);
  });
  it('handoff gets a folder for every ordered pair by default', () => {
    const c = parseConfig({ agents: { a: {}, b: {}, c: {} }, turns: { policy: 'handoff' } }, null, base);
    expect(c.directions).toHaveLength(6);
  });
});

describe('config: errors name the key path', () => {
  it('unknown keys, nested or top level, with the key a typo most likely meant', () => {
    expect(problems({ turns: { polcy: 'x' } })).toEqual(['turns.polcy: unknown key — did you mean turns.policy?']);
    expect(problems({ turns: { max_turn: 3 } })).toEqual([
      'turns.max_turn: unknown key — did you mean turns.max_turns?',
    ]);
    expect(problems({ foo: 1 })).toEqual(['foo: unknown key']);
    expect(problems({ turn: {} })).toEqual(['turn: unknown key — did you mean turns?']);
    expect(problems({ agents: { a: { kind: 'claude', comand: 'x' }, b: {} } })).toEqual([
      'agents.a.comand: unknown key — did you mean agents.a.command?',
    ]);
    expect(problems({ bus: { conversaton: 'x' } })).toEqual([
      'bus.conversaton: unknown key — did you mean bus.conversation?',
    ]);
    expect(problems({ turns: { nothing_like_it: 1 } })).toEqual(['turns.nothing_like_it: unknown key']);
  });
  it('wrong types and values', () => {
    expect(problems({ delivery: { enter_delay_ms: 'fast' } })[0]).toMatch(/^delivery\.enter_delay_ms: /);
    expect(problems({ turns: { policy: 'chaos' } })[0]).toMatch(/^turns\.policy: /);
    expect(problems({ agents: { a: { kind: 'robot' }, b: {} } })[0]).toMatch(/^agents\.a\.kind: /);
    expect(problems({ inbox: { max_bytes: -1 } })[0]).toMatch(/^inbox\.max_bytes: /);
  });
  it('cross-key problems', () => {
    expect(problems({ agents: { a: {}, b: {}, c: {} } })).toContainEqual(
      expect.stringMatching(/^turns\.policy: "alternate" needs exactly two agents/),
    );
    expect(problems({ agents: { a: {}, b: {} }, first_turn: 'z' })).toEqual(['first_turn: unknown agent "z"']);
    expect(problems({ agents: { a: {}, b: {} }, directions: { x: ['a', 'z'] } })).toContainEqual(
      'directions.x: unknown agent "z"',
    );
    expect(problems({ agents: { a: {}, b: {} }, directions: { x: ['a', 'b'] } })).toEqual([
      'directions: no folder for b → a, which the alternate policy needs',
    ]);
    expect(problems({ agents: { user: {}, b: {} } })[0]).toMatch(/^agents\.user: .*reserved/);
    expect(problems({ agents: { a: {}, b: {} }, directions: { archive: ['a', 'b'], y: ['b', 'a'] } })[0]).toMatch(
      /^directions\.archive: /,
    );
    expect(problems({ agents: { a: { session: 'x' }, b: { session: 'x' } } })[0]).toMatch(/^agents\.b\.session: /);
  });
  it('a template that could start a slash command is refused', () => {
    expect(problems({ delivery: { template: '/{content}' } })[0]).toMatch(/^delivery\.template: /);
    expect(problems({ delivery: { template: '{header}' } })[0]).toMatch(/must contain \{content\}/);
  });
  it('the error message names the file', () => {
    expect(() => parseConfig({ foo: 1 }, '/proj/config.json', base)).toThrow(
      /\/proj\/config\.json: invalid config\n {2}- foo: unknown key/,
    );
  });
});

describe('locateConfig', () => {
  it('--config, then BATON_CONFIG, then ./config.json, then the embedded default', () => {
    expect(locateConfig('x.json', '/w', {})).toEqual({ file: '/w/x.json', baseDir: '/w' });
    expect(locateConfig(undefined, '/w', { BATON_CONFIG: '/p/c.json' })).toEqual({ file: '/p/c.json', baseDir: '/p' });
    expect(locateConfig(undefined, '/nonexistent', {})).toEqual({ file: null, baseDir: '/nonexistent' });
    expect(locateConfig(undefined, '/nonexistent', { BATON_HOME: '/h' })).toEqual({ file: null, baseDir: '/h' });
  });
});

describe('config: the bus and machines (docs/protocol.md §10)', () => {
  const two = { agents: { a: { host: 'gpu-box' }, b: {} } };
  it('the files bus by default; every agent on this machine (BATON_HOST) unless it names its host', () => {
    const c = parseConfig(two, '/proj/config.json', base, { BATON_HOST: 'laptop' });
    expect(c.bus).toEqual({ kind: 'files' });
    expect(c.host).toBe('laptop');
    expect([c.agents.a!.host, c.agents.b!.host]).toEqual(['gpu-box', 'laptop']);
  });
  it('the postgres bus needs a URL, which BATON_BUS_URL replaces; the conversation defaults to the folder name', () => {
    expect(() => parseConfig({ ...two, bus: { kind: 'postgres' } }, '/proj/config.json', base, {})).toThrow(
      /bus\.url: the postgres bus needs a URL/,
    );
    const c = parseConfig(
      { ...two, bus: { kind: 'postgres', url: 'postgres://x@db/baton' } },
      '/proj/config.json',
      base,
      { BATON_BUS_URL: 'postgres://x:secret@db2/baton' },
    );
    expect(c.bus).toEqual({
      kind: 'postgres',
      url: 'postgres://x:secret@db2/baton',
      conversation: 'proj',
      schema: 'baton',
    });
    expect(problems({ ...two, bus: { kind: 'postgres', url: 'mysql://db' } })).toEqual(['bus.url: a postgres:// URL']);
  });
  it('bus.schema names the PostgreSQL schema (default baton): a safe identifier, or a problem naming the key', () => {
    const bus = (schema: string) => ({ ...two, bus: { kind: 'postgres', url: 'postgres://x@db/baton', schema } });
    expect(parseConfig(bus('team_b2'), '/proj/config.json', base, {}).bus).toMatchObject({ schema: 'team_b2' });
    expect(parseConfig(bus('_x'), '/proj/config.json', base, {}).bus).toMatchObject({ schema: '_x' });
    for (const bad of ['Baton', '2nd', 'pg_baton', 'a-b', 'a.b', 'a"b', '', 'x'.repeat(64), 'baton; DROP TABLE x'])
      expect(problems(bus(bad)), bad).toEqual([
        'bus.schema: a schema name uses lowercase letters, digits and "_", starts with a letter or "_" and not with "pg_" (max 63)',
      ]);
    expect(problems(bus('x'.repeat(63)))).toEqual([]);
  });
});

describe('config: group conversations (docs/protocol.md §11)', () => {
  it('catch_up is full by default, with measured budgets; names and off are accepted; "all" is no agent name', () => {
    const c = parseConfig({}, '/p/config.json', '/p');
    expect([c.turns.catch_up, c.turns.catch_up_max_bytes, c.turns.catch_up_message_max_bytes]).toEqual([
      'full',
      8192,
      2048,
    ]);
    for (const mode of ['names', 'off']) expect(problems({ turns: { catch_up: mode } })).toEqual([]);
    expect(problems({ turns: { catch_up: 'some' } })[0]).toMatch(/^turns\.catch_up: /);
    expect(problems({ turns: { catch_up_max_bytes: 100 } })[0]).toMatch(/^turns\.catch_up_max_bytes: /);
    expect(problems({ agents: { all: {}, b: {} } })[0]).toMatch(/^agents\.all: .*reserved/);
  });
});

describe('config: notify', () => {
  const agents = { a: { kind: 'generic' }, b: { kind: 'generic' } };
  it('takes webhook, ntfy and command sinks with their defaults', () => {
    const c = parseConfig(
      {
        agents,
        notify: [
          { webhook: 'http://127.0.0.1:9/hook', secret: 's3cret' },
          { ntfy: 'https://ntfy.sh/topic', events: ['blocked'], cooldown_s: 60 },
          { command: ['notify-send', 'baton'], timeout_s: 5 },
        ],
      },
      '/proj/config.json',
      base,
    );
    expect(c.notify).toEqual([
      {
        webhook: 'http://127.0.0.1:9/hook',
        secret: 's3cret',
        events: ['blocked', 'finished', 'stalled', 'budget', 'loop', 'error'],
        cooldown_s: 300,
        timeout_s: 10,
      },
      { ntfy: 'https://ntfy.sh/topic', events: ['blocked'], cooldown_s: 60, timeout_s: 10 },
      expect.objectContaining({ command: ['notify-send', 'baton'], timeout_s: 5 }),
    ]);
    expect(parseConfig({ agents }, '/proj/config.json', base).notify).toEqual([]);
  });

  it('names the bad key, with the closest one, and what a sink must be', () => {
    expect(problems({ agents, notify: [{ webhook: 'http://x/', secet: 'x' }] })).toEqual([
      'notify.0.secet: unknown key — did you mean notify.0.secret?',
    ]);
    expect(problems({ agents, notify: [{ events: ['blocked'] }] })).toEqual([
      'notify.0: a sink needs one of "webhook": URL, "ntfy": URL or "command": [ARGV]',
    ]);
    expect(problems({ agents, notify: [{ webhook: 'http://x/', ntfy: 'http://y/t' }] })).toEqual([
      'notify.0: a sink is one of webhook, ntfy, command, not webhook and ntfy',
    ]);
    expect(problems({ agents, notify: [{ ntfy: 'http://y/t', secret: 'x' }] })).toEqual([
      'notify.0.secret: only a webhook sink takes "secret"',
    ]);
    expect(problems({ agents, notify: [{ ntfy: 'https://ntfy.sh/' }] })).toEqual([
      'notify.0.ntfy: an ntfy URL ends with its topic: https://ntfy.sh/TOPIC',
    ]);
    expect(problems({ agents, notify: [{ webhook: 'ftp://x/' }] })).toEqual([
      'notify.0.webhook: an http:// or https:// URL',
    ]);
    expect(problems({ agents, notify: [{ command: ['x'], events: ['finishd'] }] })[0]).toMatch(
      /^notify\.0\.events\.0: /,
    );
  });
});
