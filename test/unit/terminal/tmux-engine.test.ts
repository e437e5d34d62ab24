/**
 * The tmux client's two engines (terminal/tmux-engine.ts): which one a Tmux uses is decided once, when it
 * is made; each engine is checked against a recording fake (no tmux): what the process engine hands to
 * tmux processes, and that the control engine goes through its client while one is attached and through
 * processes while none is.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ControlReply } from '../../../src/terminal/control.js';
import { ControlEngine, type Connect } from '../../../src/terminal/control-engine.js';
import { type Exec, ProcessEngine } from '../../../src/terminal/process-engine.js';
import { Tmux } from '../../../src/terminal/tmux.js';
import { engineFor } from '../../../src/terminal/tmux-engine.js';

const saved = process.env.BATON_TMUX_CONTROL;
afterEach(() => {
  if (saved === undefined) delete process.env.BATON_TMUX_CONTROL;
  else process.env.BATON_TMUX_CONTROL = saved;
});

describe('the engine a Tmux uses', () => {
  it('is the control client when asked for, unless BATON_TMUX_CONTROL=0; processes otherwise', () => {
    delete process.env.BATON_TMUX_CONTROL;
    expect(new Tmux({ control: true }).engine.kind).toBe('control');
    expect(new Tmux({ control: false }).engine.kind).toBe('process');
    expect(new Tmux().engine.kind).toBe('process');
    process.env.BATON_TMUX_CONTROL = '0';
    expect(new Tmux({ control: true }).engine.kind).toBe('process');
    expect(engineFor(true, { BATON_TMUX_CONTROL: '1' })).toBe('control');
    expect(engineFor(true, { BATON_TMUX_CONTROL: '0' })).toBe('process');
    expect(engineFor(false, {})).toBe('process');
  });
});

/** A process engine whose tmux processes are recorded, each answering ok. */
function processes() {
  const calls: Array<{ args: string[]; input: string; timeoutMs: number; env?: Record<string, string | undefined> }> =
    [];
  const exec: Exec = async (args, opts) => {
    calls.push({ args: [...args], ...opts });
    return { ok: true, stdout: '', stderr: '', exitCode: 0, timedOut: false };
  };
  return { calls, engine: new ProcessEngine(exec, 5000) };
}

describe('the process engine', () => {
  it('gives buffer text through stdin, and the guarded paste in a process after it', async () => {
    const { calls, engine } = processes();
    await engine.setBufferThenIf('b1', 'hello; "x"', ['if-shell', '-F', '1', 'paste-buffer -p -d -b b1 -t %1', 'x']);
    await engine.run(['has-session', '-t', '=s'], { timeoutMs: 100 });
    await engine.spawn(['new-session', '-d'], { env: { PATH: '/bin' } });
    expect(calls).toEqual([
      { args: ['load-buffer', '-b', 'b1', '-'], input: 'hello; "x"', timeoutMs: 5000 },
      { args: ['if-shell', '-F', '1', 'paste-buffer -p -d -b b1 -t %1', 'x'], input: '', timeoutMs: 5000 },
      { args: ['has-session', '-t', '=s'], input: '', timeoutMs: 100 },
      { args: ['new-session', '-d'], input: '', timeoutMs: 5000, env: { PATH: '/bin' } },
    ]);
  });
});

/** A control client that records each command line and answers ok (an if-shell's answer is its branch's). */
function client() {
  const lines: Array<{ args: string[]; blocks: number }> = [];
  let alive = true;
  return {
    lines,
    kill: () => void (alive = false),
    fake: {
      get alive() {
        return alive;
      },
      run: async (args: readonly string[], _timeoutMs: number, blocks = 1): Promise<ControlReply> => {
        lines.push({ args: [...args], blocks });
        return { ok: true, output: '', lost: false };
      },
      close: () => void (alive = false),
    },
  };
}

describe('the control engine', () => {
  it('sends commands through its client: buffer text as a quoted argument, an if-shell read as two blocks', async () => {
    const c = client();
    const p = processes();
    let connects = 0;
    const connect: Connect = async () => {
      connects++;
      return c.fake;
    };
    const engine = new ControlEngine(connect, p.engine, 5000);
    await engine.setBufferThenIf('b1', 'hello', ['if-shell', '-F', '1', 'paste-buffer -d -b b1 -t %1', 'x']);
    await engine.runIf(['if-shell', '-F', '1', 'send-keys Enter', 'display-message -p skipped']);
    expect(c.lines).toEqual([
      { args: ['set-buffer', '-b', 'b1', '--', 'hello'], blocks: 1 },
      { args: ['if-shell', '-F', '1', 'paste-buffer -d -b b1 -t %1', 'x'], blocks: 2 },
      { args: ['if-shell', '-F', '1', 'send-keys Enter', 'display-message -p skipped'], blocks: 2 },
    ]);
    expect(connects).toBe(1); // attached once, kept
    // stdin, or a command that needs a client of its own: a process.
    await engine.run(['load-buffer', '-'], { input: 'x' });
    await engine.spawn(['new-session', '-d']);
    expect(p.calls.map((x) => x.args[0])).toEqual(['load-buffer', 'new-session']);
    expect(c.lines).toHaveLength(3);
  });

  it('with no client to attach (no session yet), runs processes and tries again only after a pause', async () => {
    const p = processes();
    let connects = 0;
    const none: Connect = async () => {
      connects++;
      return null;
    };
    const engine = new ControlEngine(none, p.engine, 5000);
    await engine.setBufferThenIf('b1', 'hello', ['if-shell', '-F', '1', 'y', 'x']);
    await engine.run(['list-sessions']);
    expect(p.calls.map((x) => x.args)).toEqual([
      ['load-buffer', '-b', 'b1', '-'],
      ['if-shell', '-F', '1', 'y', 'x'],
      ['list-sessions'],
    ]);
    expect(connects).toBe(1);
  });

  it('attaches a new client when its client went away, and none after close()', async () => {
    const first = client();
    const second = client();
    const clients = [first.fake, second.fake];
    const p = processes();
    const engine = new ControlEngine(async () => clients.shift() ?? null, p.engine, 5000);
    await engine.run(['a']);
    first.kill();
    await engine.run(['b']);
    engine.close();
    await engine.run(['c']);
    expect(first.lines.map((l) => l.args)).toEqual([['a']]);
    expect(second.lines.map((l) => l.args)).toEqual([['b']]);
    expect(p.calls.map((x) => x.args)).toEqual([['c']]);
    expect(second.fake.alive).toBe(false);
  });
});
