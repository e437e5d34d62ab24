import { describe, expect, it } from 'vitest';
import { targetOf, type PaneInfo } from '../../../src/terminal/pane.js';
import { isBareShell, whyNotReady, whyNotTypable } from '../../../src/terminal/readiness.js';
import type { Tmux } from '../../../src/terminal/tmux.js';
import { programName, programOf } from '../../../src/terminal/program.js';

const pane = (command: string, startCommand: string): PaneInfo => ({
  id: '%1',
  session: 's',
  dead: false,
  inMode: false,
  agentPane: '',
  command,
  activity: 0,
  demo: false,
  startCommand,
  pid: 1,
  server: '1:1',
  tty: '/dev/pts/1',
  bracketed: null,
  start: '',
});

describe('isBareShell', () => {
  it('a shell in front in a pane started as a shell (or as nothing: the default shell) is bare', () => {
    expect(isBareShell(pane('bash', ''))).toBe(true);
    expect(isBareShell(pane('zsh', '"zsh -l"'))).toBe(true);
    expect(isBareShell(pane('bash', '"/bin/bash --norc -i"'))).toBe(true);
  });
  it('a shell wrapping the program the pane was started with is not', () => {
    expect(isBareShell(pane('bash', '"python3 rec.py > /tmp/log 2>&1"'))).toBe(false);
    expect(isBareShell(pane('sh', '"claude --model haiku; echo done"'))).toBe(false);
  });
  it('an agent program in front is not', () => {
    expect(isBareShell(pane('node', ''))).toBe(false);
    expect(isBareShell(pane('claude', '"claude"'))).toBe(false);
  });
});

describe('whyNotTypable', () => {
  const claude = { kind: 'claude' as const, session: 's', target: undefined };
  it('no pane, a dead pane, or a bare shell where a known agent should be', () => {
    expect(whyNotTypable(claude, null)).toBe('there is no tmux session "s"');
    expect(whyNotTypable(claude, { ...pane('node', ''), dead: true })).toMatch(/is dead/);
    expect(whyNotTypable(claude, pane('bash', ''))).toMatch(/bare shell/);
  });
  it('a shell is fine for the shell and generic kinds, and in the pane baton started the agent in', () => {
    expect(whyNotTypable({ ...claude, kind: 'shell' }, pane('bash', ''))).toBeNull();
    expect(whyNotTypable({ ...claude, kind: 'generic' }, pane('bash', ''))).toBeNull();
    expect(whyNotTypable(claude, { ...pane('bash', ''), agentPane: '%1' })).toBeNull();
    expect(whyNotTypable(claude, pane('node', '"claude"'))).toBeNull();
  });
});

describe('targetOf', () => {
  it('sessions are matched exactly; configured targets are used as given', () => {
    expect(targetOf({ session: 'claude1', target: undefined })).toBe('=claude1:');
    expect(targetOf({ session: 'x', target: '%3' })).toBe('%3');
  });
});

describe('programOf', () => {
  it('finds the program a command line runs: quoted (a path with spaces, a cache folder), after VAR=value and exec', () => {
    expect(programOf("'/a b/codex' --yolo")).toBe('/a b/codex');
    expect(programOf('"/a b/gem\\"x" --yolo')).toBe('/a b/gem"x');
    expect(programOf('FOO=1 exec claude -x')).toBe('claude');
    expect(programOf('"bash --norc -i"')).toBe('bash');
    expect(programOf('')).toBeUndefined();
    expect(programName("'/w/.cache/codex-0.169.0/node_modules/.bin/codex' --x")).toBe('codex');
  });
});

describe('whyNotReady: a client that has not turned on bracketed paste', () => {
  it('is still starting for the kinds whose screen baton reads (a paste would arrive as keys); other kinds go by their intake', async () => {
    const noTmux = null as unknown as Tmux; // never asked: the answer comes before the screen is read
    const starting = { ...pane('node', '"gemini"'), bracketed: false };
    for (const kind of ['claude', 'codex', 'gemini'] as const) {
      expect((await whyNotReady(noTmux, { kind, session: 's', target: undefined }, starting))?.reason, kind).toMatch(
        /has not turned on bracketed paste yet/,
      );
    }
    expect(await whyNotReady(noTmux, { kind: 'generic', session: 's', target: undefined }, starting)).toBeNull();
  });
});

describe('whyNotReady: the demo agent before the tracker saw it turn on bracketed paste', () => {
  it('is still starting, whatever kind it stands in for (typed on one line, a topic lost its lines)', async () => {
    const noTmux = null as unknown as Tmux; // never asked: the answer comes before the screen is read
    const demo = { ...pane('node', '"node demo/agent.js"'), demo: true, bracketed: false };
    for (const kind of ['claude', 'generic'] as const)
      expect((await whyNotReady(noTmux, { kind, session: 's', target: undefined }, demo))?.reason, kind).toMatch(
        /the demo agent has not turned on bracketed paste yet/,
      );
  });
});
