/**
 * app/up/instructions.ts: what each agent's instructions file says, for two and three agents under each turn
 * policy, and how `baton up` writes the files without touching one a person has made their own. Configs
 * live in temporary folders (the text looks for baton's scripts/send.sh under the config's folder).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { instructionsText, MARKER, writeInstructions } from '../../../src/app/up/instructions.js';
import { parseConfig } from '../../../src/config/config.js';
import { KINDS } from '../../../src/terminal/kinds.js';

const roots: string[] = [];
afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});
const tempRoot = (sendSh = false) => {
  const r = mkdtempSync(join(tmpdir(), 'baton-instructions-'));
  roots.push(r);
  if (sendSh) {
    mkdirSync(join(r, 'scripts'));
    writeFileSync(join(r, 'scripts', 'send.sh'), '#!/bin/sh\n');
  }
  return r;
};

type AgentSpec = { kind: string; command?: string; reply?: string; target?: string; cwd?: string };
const claude: AgentSpec = { kind: 'claude', command: 'claude' };

function config(
  policy: 'alternate' | 'round_robin' | 'handoff',
  agents: Record<string, AgentSpec>,
  opts: { first?: string; base?: string } = {},
) {
  const base = opts.base ?? tempRoot();
  return parseConfig({ agents, turns: { policy }, first_turn: opts.first }, join(base, 'config.json'), base, {
    BATON_HOST: 'here',
  });
}
const two = (policy: 'alternate' | 'round_robin' | 'handoff', opts = {}) =>
  config(policy, { a: claude, b: claude }, opts);
const three = (policy: 'round_robin' | 'handoff', opts = {}) =>
  config(policy, { a: claude, b: claude, c: claude }, opts);

describe('every instructions file', () => {
  it("starts with baton's marker line, then who the agent is and who else is in the conversation", () => {
    const text = instructionsText(three('round_robin'), 'b');
    expect(text.split('\n').slice(0, 4)).toEqual([
      MARKER,
      '# You are b',
      '',
      'You are **b**, one of 3 AI agents in a conversation run by **baton**: a, b, c.',
    ]);
  });

  it('the first speaker is told it holds the turn; the others are told who speaks first', () => {
    const c = two('alternate');
    expect(instructionsText(c, 'a')).toContain('- You speak first: you hold the turn when the conversation starts.');
    expect(instructionsText(c, 'b')).toContain('\n- a speaks first.\n');
    expect(instructionsText(two('alternate', { first: 'b' }), 'a')).toContain('\n- b speaks first.\n');
  });
});

describe('two agents, alternating', () => {
  const c = two('alternate');

  it('turns alternate with the other agent, and every reply goes to it', () => {
    const text = instructionsText(c, 'a');
    expect(text).toContain('- Turns alternate strictly between you and **b**.');
    expect(text).toContain('[baton] reply to b with: baton post "<your reply>"');
    expect(text).toContain('```sh\nbaton post "your reply"\n```');
    expect(text).toContain("baton post - <<'MSG'\nfirst line\nsecond line\nMSG");
    expect(instructionsText(c, 'b')).toContain('- Turns alternate strictly between you and **a**.');
  });
});

describe('round robin', () => {
  it('three agents: each writes to the next in order, the last to the first', () => {
    const c = three('round_robin');
    const order = 'Turns go round in this order: a → b → c → a.';
    for (const [agent, next] of [
      ['a', 'b'],
      ['b', 'c'],
      ['c', 'a'],
    ]) {
      const text = instructionsText(c, agent!);
      expect(text, agent).toContain(`- ${order} Your messages go to **${next}**.`);
      expect(text, agent).toContain(`[baton] reply to ${next} with: baton post "<your reply>"`);
    }
  });

  it('two agents: the round is there and back', () => {
    expect(instructionsText(two('round_robin'), 'b')).toContain(
      '- Turns go round in this order: a → b → a. Your messages go to **a**.',
    );
  });
});

describe('handoff', () => {
  it('three agents: the agent chooses who speaks next, and addresses it', () => {
    const text = instructionsText(three('handoff'), 'a');
    expect(text).toContain('You choose who speaks next: your message goes to the agent you\n  address (b, c)');
    expect(text).toContain('[baton] your turn: pass it on with: baton post --to AGENT "<your message>"');
    expect(text).toContain('```sh\nbaton post --to b "your message"\n```');
    expect(text).toContain("baton post --to b - <<'MSG'");
    expect(text).not.toContain('baton post "your reply"');
  });

  it('two agents: the only other agent is named', () => {
    const text = instructionsText(two('handoff'), 'b');
    expect(text).toContain('address (a), and that agent gets the turn.');
    expect(text).toContain('baton post --to a "your message"');
  });
});

describe("baton's helper script", () => {
  it("is offered beside baton post where baton's own checkout has it, by a path from the agent's folder", () => {
    const c = two('alternate', { base: tempRoot(true) });
    expect(instructionsText(c, 'a')).toContain(
      '```sh\nbaton post "your reply"\n../../scripts/send.sh "your reply"      # the same, through the helper script\n```',
    );
  });

  it("an agent working in baton's scripts folder itself runs it from there", () => {
    const c = config('alternate', { a: { ...claude, cwd: 'scripts' }, b: claude }, { base: tempRoot(true) });
    expect(instructionsText(c, 'a')).toContain('\n./send.sh "your reply"');
  });

  it('not where it is missing, nor under handoff (it cannot address an agent)', () => {
    expect(instructionsText(two('alternate'), 'a')).not.toContain('send.sh');
    expect(instructionsText(two('handoff', { base: tempRoot(true) }), 'a')).not.toContain('send.sh');
  });
});

describe('kinds and reply modes', () => {
  it('a shell pane is told it gets a comment line to read with baton show, not the text', () => {
    const c = config('alternate', { a: { kind: 'codex', command: 'codex' }, s: { kind: 'shell', command: 'bash' } });
    expect(instructionsText(c, 's')).toContain('# baton: msg_0007 from a … - read it with: baton show msg_0007');
    expect(instructionsText(c, 'a')).not.toContain('baton show');
  });

  it('reply "both": the agent posts, and is told baton sends its final reply if it forgets', () => {
    const c = config('alternate', { a: { ...claude, reply: 'both' }, b: claude });
    expect(instructionsText(c, 'a')).toContain('baton sends your final reply for you (once)');
    expect(instructionsText(c, 'b')).not.toContain('final reply');
  });

  it('reply "auto": the agent just answers and never runs baton post', () => {
    const c = config('round_robin', { a: { ...claude, reply: 'auto' }, b: claude, c: claude });
    const text = instructionsText(c, 'a');
    expect(text.startsWith(`${MARKER}\n# You are a\n`)).toBe(true);
    expect(text).toContain('- Turns go round in this order: a → b → c → a. Your messages go to **b**.');
    expect(text).toContain('- You speak first');
    expect(text).toContain('Just answer in plain text');
    expect(text).toContain('Do not run `baton post`');
    expect(text).not.toContain('```sh');
  });
});

describe('writing the files', () => {
  const setup = () => {
    const c = config('round_robin', {
      a: claude,
      b: { kind: 'codex', command: 'codex' },
      c: { kind: 'aider', command: 'aider' },
      d: { kind: 'claude', command: 'claude', target: 'work:1.0' },
    });
    return { c, file: (agent: string, name: string) => join(c.agents[agent]!.cwd, name) };
  };

  it("writes each agent's file, named for its kind, into its folder; not for a pane a person runs", async () => {
    const { c, file } = setup();
    const r = await writeInstructions(c);
    expect(r).toEqual({
      written: [file('a', 'CLAUDE.md'), file('b', 'AGENTS.md'), file('c', 'CONVENTIONS.md')],
      kept: [],
    });
    expect(readFileSync(file('b', 'AGENTS.md'), 'utf8')).toBe(instructionsText(c, 'b'));
    expect(existsSync(c.agents.d!.cwd)).toBe(false);
  });

  it('a file that says the same already is left alone; one baton wrote earlier is brought up to date', async () => {
    const { c, file } = setup();
    await writeInstructions(c);
    writeFileSync(file('a', 'CLAUDE.md'), `${MARKER}\nan older text\n`);
    expect(await writeInstructions(c)).toEqual({ written: [file('a', 'CLAUDE.md')], kept: [] });
    expect(readFileSync(file('a', 'CLAUDE.md'), 'utf8')).toBe(instructionsText(c, 'a'));
  });

  it("a person's own file (no marker line) is never touched", async () => {
    const { c, file } = setup();
    mkdirSync(c.agents.b!.cwd, { recursive: true });
    writeFileSync(file('b', 'AGENTS.md'), `My own notes.\n${MARKER}\n`);
    const r = await writeInstructions(c);
    expect(r.kept).toEqual([file('b', 'AGENTS.md')]);
    expect(r.written).not.toContain(file('b', 'AGENTS.md'));
    expect(readFileSync(file('b', 'AGENTS.md'), 'utf8')).toBe(`My own notes.\n${MARKER}\n`);
  });
});

describe('the example header', () => {
  it('round robin: it names the agent a message really comes from', () => {
    const base = mkdtempSync(join(tmpdir(), 'baton-ex-'));
    const claude = { kind: 'claude', command: 'claude' };
    const c = parseConfig(
      { agents: { a: claude, b: claude, c: claude }, turns: { policy: 'round_robin' } },
      null,
      base,
    );
    expect(instructionsText(c, 'c')).toContain('[baton] msg_0007 from b (reply to msg_0006)');
    expect(instructionsText(c, 'a')).toContain('[baton] msg_0007 from c (reply to msg_0006)');
    rmSync(base, { recursive: true, force: true });
  });
});

describe('group conversations (docs/protocol.md §11)', () => {
  it('with three agents a turn may begin with what was said meanwhile: context, not to be answered line by line', () => {
    for (const policy of ['round_robin', 'handoff'] as const) {
      const text = instructionsText(three(policy), 'b');
      expect(text).toContain('[baton] while you were away');
      expect(text).toContain('do\n  not answer it line by line: answer the message to you.');
      expect(text).toContain('`baton show ID`');
    }
    const auto = config('round_robin', { a: claude, b: { ...claude, reply: 'auto' }, c: claude });
    expect(instructionsText(auto, 'b')).toContain('[baton] while you were away');
    // Two agents miss nothing; "off" turns it off.
    expect(instructionsText(two('alternate'), 'a')).not.toContain('while you were away');
    const off = parseConfig(
      { agents: { a: claude, b: claude, c: claude }, turns: { policy: 'round_robin', catch_up: 'off' } },
      join(tempRoot(), 'config.json'),
      tempRoot(),
      { BATON_HOST: 'here' },
    );
    expect(instructionsText(off, 'a')).not.toContain('while you were away');
  });

  it("a person's note to every agent is a directive, with any number of agents", () => {
    for (const c of [two('alternate'), three('handoff')])
      expect(instructionsText(c, 'a')).toContain('is a\n  directive: follow it.');
  });
});

describe("the repository's own agents", () => {
  it('agents/*/ hold exactly what the template writes for the shipped config.json (git status stays clean after up)', () => {
    // `baton up` in a fresh clone rewrote both CLAUDE.md files (the template had grown a line since they were
    // committed), so the quick start left `git status` dirty.
    const repo = join(import.meta.dirname, '..', '..', '..');
    const shipped = parseConfig(
      JSON.parse(readFileSync(join(repo, 'config.json'), 'utf8')),
      join(repo, 'config.json'),
      repo,
      { BATON_HOST: 'here' },
    );
    for (const name of shipped.order) {
      const agent = shipped.agents[name]!;
      const file = join(agent.cwd, KINDS[agent.kind].instructions);
      expect(readFileSync(file, 'utf8'), `${file} is older than the template: run baton up once, commit it`).toBe(
        instructionsText(shipped, name),
      );
    }
  });
});
