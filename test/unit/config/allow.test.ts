/**
 * agents.NAME.allow: validated with the key named, translated into each client's own rule syntax (the
 * forms measured on the real clients), and merged into Claude Code's permissions.allow without losing the
 * user's own entries — and without keeping a rule the config no longer has.
 */
import { describe, expect, it } from 'vitest';
import { type ConfigError, parseConfig } from '../../../src/config/config.js';
import { claudeAllow, codexRules, geminiRules, mergeClaudeAllow } from '../../../src/terminal/hooks/allow-rules.js';

const load = (a: object, b: object = { kind: 'claude' }) =>
  parseConfig({ agents: { a: { kind: 'claude', ...a }, b } }, '/p/config.json', '/p', {});
const problems = (a: object): string => {
  try {
    load(a);
    return '';
  } catch (err) {
    return (err as ConfigError).message;
  }
};

describe('agents.NAME.allow in config.json', () => {
  it('command prefixes and a client’s own rules', () => {
    expect(load({ allow: ['npm test', 'git status', { claude: 'Edit(./**)' }] }).agents.a!.allow).toEqual([
      'npm test',
      'git status',
      { claude: 'Edit(./**)' },
    ]);
    expect(load({}).agents.a!.allow).toEqual([]);
  });

  it('refused, naming the key: shell syntax in a prefix, an empty object, a rule for another client, a kind with none', () => {
    expect(problems({ allow: ['npm test | tee log'] })).toMatch(/agents\.a\.allow\.0: a command prefix is plain words/);
    expect(problems({ allow: ['rm $HOME'] })).toMatch(/agents\.a\.allow\.0/);
    expect(problems({ allow: ['  npm test'] })).toMatch(/agents\.a\.allow\.0/);
    expect(problems({ allow: [{}] })).toMatch(/agents\.a\.allow\.0: name the client/);
    expect(problems({ allow: ['ls', { codex: 'prefix_rule(pattern=["ls"])' }] })).toMatch(
      /agents\.a\.allow\.1: no rule for claude \(it has codex\)/,
    );
    expect(problems({ allow: [{ claude: 'Edit', aider: 'x' }] })).toMatch(/agents\.a\.allow\.0/);
    expect(problems({ kind: 'generic', allow: ['ls'] })).toMatch(
      /agents\.a\.allow: only claude, codex, gemini agents have permission settings baton writes, not "generic"/,
    );
  });
});

describe('each client’s own syntax', () => {
  const rules = [
    'npm test',
    { claude: 'Edit(./**)', gemini: '[[rule]]\ntoolName = "write_file"\ndecision = "allow"\npriority = 500' },
  ];
  it('Claude Code: Bash(prefix:*), its own rules as they are', () => {
    expect(claudeAllow(rules)).toEqual(['Bash(npm test:*)', 'Edit(./**)']);
  });
  it('Codex: prefix_rule with the words as a pattern', () => {
    expect(codexRules(rules)).toEqual(['prefix_rule(pattern=["npm", "test"], decision="allow")']);
    expect(codexRules([{ codex: 'prefix_rule(pattern=["make"], decision="allow")' }])).toEqual([
      'prefix_rule(pattern=["make"], decision="allow")',
    ]);
  });
  it('Gemini CLI: a commandPrefix rule for the shell tool', () => {
    expect(geminiRules(rules)).toEqual([
      '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "npm test"\ndecision = "allow"\npriority = 500',
      '[[rule]]\ntoolName = "write_file"\ndecision = "allow"\npriority = 500',
    ]);
  });
});

describe('Claude Code’s permissions.allow: the user’s entries kept, baton’s replaced', () => {
  it('adds the config’s rules after the user’s own', () => {
    expect(mergeClaudeAllow(['Bash(ls:*)'], { before: [], now: ['Bash(npm test:*)'] })).toEqual({
      allow: ['Bash(ls:*)', 'Bash(npm test:*)'],
      added: ['Bash(npm test:*)'],
    });
  });
  it('a rule the config no longer has goes; one the user had before baton stays theirs', () => {
    const have = ['Bash(ls:*)', 'Bash(npm test:*)', 'Bash(git status:*)'];
    expect(mergeClaudeAllow(have, { before: ['Bash(npm test:*)'], now: ['Bash(ls:*)'] })).toEqual({
      allow: ['Bash(ls:*)', 'Bash(git status:*)'],
      added: [],
    });
  });
});
