/**
 * terminal/fence.ts: the conditions tmux checks in the same step as a keystroke. The strings are checked
 * as written, then evaluated by a small model of tmux's format language (#{name}, #{==:a,b}, #{<:a,b},
 * #{&&:a,b}, #{||:a,b}; comparisons are on strings, as tmux's are) against a pane and a server's options,
 * so each rule is seen refusing what it must and letting through what it must.
 */
import { describe, expect, it } from 'vitest';
import { guard, raiseFence, refusal, skipReport, tmuxFence } from '../../../src/terminal/fence.js';
import type { PaneRef } from '../../../src/terminal/pane.js';
import { SKIPPED } from '../../../src/terminal/tmux.js';

type Vars = Record<string, string>;

/** The index of the `}` that closes the `#{` whose contents start at `from`. */
function closing(s: string, from: number): number {
  let depth = 1;
  for (let i = from; i < s.length; i++) {
    if (s.startsWith('#{', i)) {
      depth++;
      i++;
    } else if (s[i] === '}' && --depth === 0) return i;
  }
  throw new Error(`unbalanced format: ${s}`);
}

/** Split `a,b` at its first comma outside any #{…}. */
function operands(s: string): [string, string] {
  for (let i = 0, depth = 0; i < s.length; i++) {
    if (s.startsWith('#{', i)) {
      depth++;
      i++;
    } else if (s[i] === '}') depth--;
    else if (s[i] === ',' && depth === 0) return [s.slice(0, i), s.slice(i + 1)];
  }
  throw new Error(`no operands in ${s}`);
}

const truthy = (v: string) => v !== '' && v !== '0';
const bit = (b: boolean) => (b ? '1' : '0');

function item(inner: string, vars: Vars): string {
  const op = /^(==|<|&&|\|\|):/.exec(inner);
  if (!op) {
    // An option nobody set expands to nothing; any other name must be one the test provides.
    if (inner.startsWith('@')) return vars[inner] ?? '';
    if (!(inner in vars)) throw new Error(`the model does not know #{${inner}}`);
    return vars[inner]!;
  }
  const [a, b] = operands(inner.slice(op[0].length)).map((x) => expand(x, vars));
  if (op[1] === '==') return bit(a === b);
  if (op[1] === '<') return bit(a! < b!);
  if (op[1] === '&&') return bit(truthy(a!) && truthy(b!));
  return bit(truthy(a!) || truthy(b!));
}

function expand(format: string, vars: Vars): string {
  let out = '';
  for (let i = 0; i < format.length; ) {
    if (format.startsWith('#{', i)) {
      const end = closing(format, i + 2);
      out += item(format.slice(i + 2, end), vars);
      i = end + 1;
    } else out += format[i++];
  }
  return out;
}

const fence = tmuxFence({ key: 'conv1', token: '000000000007' });
const pane: PaneRef = { id: '%3', pid: 4242, server: '77:1700000000' };
/** The server and pane the keys are meant for, with this daemon's token set. */
const world = (over: Vars = {}): Vars => ({
  pid: '77',
  start_time: '1700000000',
  pane_pid: '4242',
  pane_dead: '0',
  pane_in_mode: '0',
  '@baton_fence_conv1': '000000000007',
  ...over,
});
const holds = (over: Vars = {}, f: typeof fence | null = fence) => truthy(expand(guard(f, pane), world(over)));

/** What the refusing branch prints in `w`, as tmux would print it. */
function printed(f: typeof fence | null, w: Vars): string {
  const m = /^display-message -p '(.*)'$/s.exec(skipReport(f));
  if (!m) throw new Error(`not a display-message: ${skipReport(f)}`);
  return expand(m[1]!, w);
}

describe('the fence', () => {
  it('is a server option per conversation holding the token', () => {
    expect(fence).toEqual({ option: '@baton_fence_conv1', token: '000000000007' });
  });

  it('the guard, as tmux gets it', () => {
    expect(guard(fence, pane)).toBe(
      '#{&&:#{&&:#{&&:#{&&:#{==:#{@baton_fence_conv1},000000000007},#{==:#{pid}:#{start_time},77:1700000000}},' +
        '#{==:#{pane_pid},4242}},#{==:#{pane_dead},0}},#{==:#{pane_in_mode},0}}',
    );
  });

  it('keys go to the pane that got the paste, alive and not scrolled, while this daemon holds the fence', () => {
    expect(holds()).toBe(true);
  });

  it('a daemon whose token is not the newest types nothing, nor one whose server lost the token', () => {
    expect(holds({ '@baton_fence_conv1': '000000000008' })).toBe(false);
    expect(holds({ '@baton_fence_conv1': '' })).toBe(false);
  });

  it('another server, another process in that pane id, a dead pane or one in copy mode gets nothing', () => {
    expect(holds({ start_time: '1700000999' })).toBe(false);
    expect(holds({ pid: '78' })).toBe(false);
    expect(holds({ pane_pid: '4243' })).toBe(false);
    expect(holds({ pane_dead: '1' })).toBe(false);
    expect(holds({ pane_in_mode: '1' })).toBe(false);
  });

  it('without a fence (a one-shot answer) only the pane is checked', () => {
    expect(guard(null, pane)).not.toContain('@baton_fence');
    expect(holds({ '@baton_fence_conv1': '000000000099' }, null)).toBe(true);
    expect(holds({ pane_dead: '1' }, null)).toBe(false);
  });
});

describe('why keys were refused', () => {
  it('the refusing branch prints a line that starts with the skip marker, tab-separated', () => {
    expect(skipReport(fence)).toBe(
      `display-message -p '${SKIPPED}\t#{pid}:#{start_time}\t#{pane_pid}\t#{pane_dead}\t#{pane_in_mode}\t#{@baton_fence_conv1}'`,
    );
    expect(printed(fence, world())).toBe(`${SKIPPED}\t77:1700000000\t4242\t0\t0\t000000000007`);
    expect(printed(null, world())).toBe(`${SKIPPED}\t77:1700000000\t4242\t0\t0\t`);
  });

  it('a newer token: fenced; no token at all: unfenced (set it, then try again)', () => {
    expect(refusal(printed(fence, world({ '@baton_fence_conv1': '000000000008' })), fence, pane)).toBe('fenced');
    expect(refusal(printed(fence, world({ '@baton_fence_conv1': '' })), fence, pane)).toBe('unfenced');
  });

  it('the token is looked at first: a pane that also moved is still fenced', () => {
    const w = world({ '@baton_fence_conv1': '000000000008', pane_pid: '1', pane_dead: '1' });
    expect(refusal(printed(fence, w), fence, pane)).toBe('fenced');
  });

  it('another server or another process: moved; then dead; then copy mode', () => {
    expect(refusal(printed(fence, world({ start_time: '1' })), fence, pane)).toBe('moved');
    expect(refusal(printed(fence, world({ pane_pid: '1', pane_dead: '1' })), fence, pane)).toBe('moved');
    expect(refusal(printed(fence, world({ pane_dead: '1', pane_in_mode: '1' })), fence, pane)).toBe('dead');
    expect(refusal(printed(fence, world({ pane_in_mode: '1' })), fence, pane)).toBe('copy_mode');
  });

  it('without a fence the token is not looked at', () => {
    expect(refusal(printed(null, world({ pane_in_mode: '1' })), null, pane)).toBe('copy_mode');
    // Whatever token the server holds: a one-shot answer does not compete for the conversation.
    expect(refusal(`${SKIPPED}\t77:1700000000\t4242\t0\t1\t000000000009`, null, pane)).toBe('copy_mode');
  });

  it('a refusal nothing explains (the pane changed in between, or output cut short) counts as moved', () => {
    expect(refusal(printed(fence, world()), fence, pane)).toBe('moved');
    expect(refusal(`${SKIPPED}\t77:1700000000\t4242`, null, pane)).toBe('moved');
    expect(refusal('', null, pane)).toBe('moved');
  });
});

describe('raising the fence', () => {
  const raise = (f: typeof fence, current: string) =>
    truthy(expand(raiseFence(f).condition, world({ [f.option]: current })));

  it('sets this token on the server', () => {
    expect(raiseFence(fence).command).toBe('set-option -s @baton_fence_conv1 000000000007');
  });

  it('where no token is set, or an older one', () => {
    expect(raise(fence, '')).toBe(true);
    expect(raise(fence, '000000000006')).toBe(true);
  });

  it('never over the same token or a newer one: then this daemon is fenced', () => {
    expect(raise(fence, '000000000007')).toBe(false);
    expect(raise(fence, '000000000008')).toBe(false);
  });

  it('zero-padded tokens keep string order as number order', () => {
    expect(raise(tmuxFence({ key: 'conv1', token: '000000000010' }), '000000000009')).toBe(true);
    expect(raise(tmuxFence({ key: 'conv1', token: '000000000009' }), '000000000010')).toBe(false);
  });
});
