/**
 * terminal/program.ts: the program a command line runs (for `baton up`'s "is it installed?", `baton
 * doctor`, and telling an agent CLI from a bare shell), and whether it is on PATH. onPath is checked
 * against files in a temporary folder, never the machine's own PATH.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { onPath, programName, programOf } from '../../../src/terminal/program.js';

describe('the program a command line runs', () => {
  it('the first word, whatever follows it', () => {
    expect(programOf('claude --dangerously-skip-permissions')).toBe('claude');
    expect(programOf('  codex\t--yolo  ')).toBe('codex');
    expect(programOf('aider --read CONVENTIONS.md')).toBe('aider');
  });

  it('past every VAR=value before it, and an exec', () => {
    expect(programOf('A=1 B_2=x _C= gemini')).toBe('gemini');
    expect(programOf('exec A=1 codex')).toBe('codex');
    expect(programOf('A=1 exec B=2 codex --x')).toBe('codex');
  });

  it('a quoted word is the program even when it looks like an assignment or exec', () => {
    expect(programOf("'exec' x")).toBe('exec');
    expect(programOf('"A=1" x')).toBe('A=1');
  });

  it('a word that is not a name before = is the program, not an assignment', () => {
    expect(programOf('1A=2 x')).toBe('1A=2');
    expect(programOf('./run=fast x')).toBe('./run=fast');
  });

  it('quotes are removed; a backslash in double quotes keeps the character after it', () => {
    expect(programOf("'/opt/my tools/codex' --yolo")).toBe('/opt/my tools/codex');
    expect(programOf('"/opt/a \\\\ b/x" y')).toBe('/opt/a \\ b/x');
  });

  it("tmux's quoted start command of a pane is unwrapped first", () => {
    expect(programOf('"/usr/bin/zsh -l"')).toBe('/usr/bin/zsh');
    expect(programOf('"exec claude"')).toBe('claude');
  });

  it('a line with nothing to run has no program', () => {
    expect(programOf('')).toBeUndefined();
    expect(programOf('   ')).toBeUndefined();
    expect(programOf('A=1 B=2')).toBeUndefined();
    expect(programOf('exec')).toBeUndefined();
  });

  it("the program's name is without its folder, and empty when there is none", () => {
    expect(programName('/usr/local/bin/gemini --yolo')).toBe('gemini');
    expect(programName('A=1 ./node_modules/.bin/codex')).toBe('codex');
    expect(programName('"bash --norc -i"')).toBe('bash');
    expect(programName('')).toBe('');
  });
});

describe('is it installed', () => {
  const root = mkdtempSync(join(tmpdir(), 'baton-program-'));
  const bin = join(root, 'bin');
  const other = join(root, 'other');
  const cwd = join(root, 'work');
  for (const d of [bin, other, cwd]) mkdirSync(d);
  const file = (path: string, mode: number) => {
    writeFileSync(path, '#!/bin/sh\n');
    chmodSync(path, mode);
  };
  file(join(bin, 'agent'), 0o755);
  file(join(other, 'tool'), 0o755);
  file(join(bin, 'notes'), 0o644);
  file(join(cwd, 'local-agent'), 0o755);
  const PATH = [bin, '', other].join(delimiter);

  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('a bare name is looked for in each folder of the PATH given', () => {
    expect(onPath('agent', cwd, PATH)).toBe(true);
    expect(onPath('tool', cwd, PATH)).toBe(true);
    expect(onPath('missing', cwd, PATH)).toBe(false);
  });

  it('a file that is there but not executable is not installed', () => {
    expect(onPath('notes', cwd, PATH)).toBe(false);
  });

  it('a bare name is never looked for in the working folder, nor in an empty PATH', () => {
    expect(onPath('local-agent', cwd, PATH)).toBe(false);
    expect(onPath('agent', cwd, '')).toBe(false);
  });

  it('a path with a folder is taken from the working folder, or as it is when absolute', () => {
    expect(onPath('./local-agent', cwd, '')).toBe(true);
    expect(onPath('../bin/agent', cwd, '')).toBe(true);
    expect(onPath(join(other, 'tool'), '/', '')).toBe(true);
    expect(onPath('./agent', cwd, PATH)).toBe(false);
  });
});

describe('programOf: assignments with quoted values', () => {
  it('a quoted value of an assignment before the program is skipped whole', () => {
    expect(programOf('ANTHROPIC_MODEL="claude opus" claude --x')).toBe('claude');
    expect(programOf("FOO='a b' codex")).toBe('codex');
    expect(programOf('A="x \\" y" \'/opt/my tools/gemini\' --yolo')).toBe('/opt/my tools/gemini');
  });
});
