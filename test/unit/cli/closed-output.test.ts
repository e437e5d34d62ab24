/**
 * Output to a closed pipe (cli/command.ts): a command that changes state goes on to its end with that output
 * silenced (`baton up 2>&1 | head -1` once stopped after one of two agents, with no daemon, exit 0); only a
 * command that reads ends at once.
 */
import { describe, expect, it } from 'vitest';
import { isClosed, onClosedOutput, whenOutputCloses } from '../../../src/cli/command.js';
import { COMMANDS } from '../../../src/cli/commands/index.js';

const reads = (name: string, values: Record<string, unknown> = {}) => {
  const r = COMMANDS[name]!.reads;
  return typeof r === 'function' ? r({ values, positionals: [] }) : Boolean(r);
};

describe('which commands end at once on a closed output', () => {
  it('every command that changes state keeps going; the ones that only read end', () => {
    for (const name of ['init', 'up', 'down', 'send', 'start', 'post', 'end', 'pause', 'resume', 'approve', 'reject'])
      expect(reads(name), name).toBe(false);
    for (const name of ['service', 'daemon', 'ui', 'mcp']) expect(reads(name), name).toBe(false);
    expect(reads('doctor', { repair: true })).toBe(false);
    for (const name of ['status', 'ls', 'log', 'show', 'attach']) expect(reads(name), name).toBe(true);
    expect(reads('doctor')).toBe(true);
  });
});

describe('a stream that went to a closed pipe', () => {
  it('is silenced (what is written after goes nowhere, its callback still called) and the rule runs once', async () => {
    const written: string[] = [];
    const stream = { write: (chunk: string) => written.push(chunk) > 0 } as unknown as NodeJS.WriteStream;
    let ran = 0;
    whenOutputCloses(() => ran++);
    onClosedOutput(stream);
    onClosedOutput(stream); // EPIPE again, for the next write already under way
    expect(ran).toBe(1);
    expect(isClosed(stream)).toBe(true);
    let called = false;
    expect(stream.write('gone', () => (called = true))).toBe(true);
    await Promise.resolve();
    expect(called).toBe(true);
    expect(written).toEqual([]);
  });
});
