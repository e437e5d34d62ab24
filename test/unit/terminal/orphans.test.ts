import { describe, expect, it } from 'vitest';
import { type ClientProcess, orphans } from '../../../src/terminal/orphans.js';

const ours = ['tmux', '-u', '-S', '/tmp/s', '-C', 'attach-session', '-f', 'ignore-size,no-output'];
const procs: Record<number, ClientProcess> = {
  10: { ppid: 1, parent: 'init', argv: ours }, // a killed daemon's
  11: { ppid: 500, parent: 'node', argv: ours }, // a live daemon's
  12: { ppid: 1, parent: 'init', argv: ['tmux', '-CC', 'attach'] }, // a person's (iTerm2), orphaned or not
  13: { ppid: 900, parent: 'systemd', argv: ['/usr/bin/tmux', '-L', 'x', ...ours.slice(4)] }, // a service's
  14: { ppid: 1, parent: 'init', argv: ['tmux', 'attach-session'] }, // a terminal client
};
const look = (pid: number) => procs[pid] ?? null;

describe('the control clients a killed daemon left attached', () => {
  it('are ours (tmux, our control command line) and parentless; never the asker, a live one or a person’s', () => {
    const listing = '10 1\n11 1\n12 1\n13 1\n14 0\n15 1\n20 1\n';
    expect(orphans(listing, 20, look)).toEqual([10, 13]);
    expect(orphans(listing, 10, look)).toEqual([13]);
  });

  it('a listing that does not read ends nothing', () => {
    expect(orphans('', 1, look)).toEqual([]);
    expect(orphans('garbage\n1 x\n', 1, () => procs[10]!)).toEqual([]);
  });
});
