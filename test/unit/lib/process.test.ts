/**
 * lib/process.ts against node child processes this test starts (and ends, by their pid): alive or not,
 * and a process group ended gracefully, then with SIGTERM, then with SIGKILL for one that ignores it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { endGroups, pidAlive } from '../../../src/lib/process.js';

const started: ChildProcess[] = [];
afterEach(() => {
  for (const c of started.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

/**
 * A node process leading its own process group, running `code`; resolves once it has started. It exits
 * by itself after 15 s whatever happens, so a test that fails (or a run cut short) leaves nothing behind.
 */
async function child(code: string): Promise<{ c: ChildProcess; pid: number; said: string }> {
  const watchdog = 'setTimeout(() => process.exit(9), 15_000)';
  const c = spawn(process.execPath, ['-e', `${watchdog}; ${code}; process.stdout.write('up')`], {
    detached: true,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  started.push(c);
  const [first] = await once(c.stdout!, 'data');
  if (c.pid === undefined) throw new Error('no pid');
  return { c, pid: c.pid, said: String(first) };
}

describe('is a process alive', { timeout: 10_000 }, () => {
  it('this one is', () => {
    expect(pidAlive(process.pid)).toBe(true);
    // 0 and -1 name a group to kill(): no process of a record's.
    for (const pid of [0, -1, 1.5]) expect(pidAlive(pid)).toBe(false);
  });

  it('one that has exited is not', async () => {
    const { c, pid } = await child('setTimeout(() => process.exit(0), 10)');
    await once(c, 'exit');
    expect(pidAlive(pid)).toBe(false);
  });

  it('one that has exited but is not reaped yet (a zombie) is not', async () => {
    // A parent that starts a child, says its pid, and blocks: nothing reaps the child until the parent
    // wakes, so the child is a zombie meanwhile (kill(pid, 0) still succeeds on it).
    const parent = [
      "const c = require('node:child_process').spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' })",
      'process.stdout.write(String(c.pid))',
      'Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5000)',
    ].join('; ');
    const zombie = Number((await child(parent)).said);
    const until = Date.now() + 3000;
    while (pidAlive(zombie) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    expect(() => process.kill(zombie, 0)).not.toThrow();
    expect(pidAlive(zombie)).toBe(false);
  });
});

describe('ending process groups', { timeout: 10_000 }, () => {
  it('a process that ends on its own within the grace time gets no signal', async () => {
    const { c, pid } = await child('setTimeout(() => process.exit(7), 100)');
    const exited = once(c, 'exit');
    await endGroups([pid], 2000);
    const [code, signal] = await exited;
    expect({ code, signal }).toEqual({ code: 7, signal: null });
  });

  it('one still running after the grace time gets SIGTERM', async () => {
    const { c, pid } = await child('setInterval(() => {}, 1000)');
    const exited = once(c, 'exit');
    await endGroups([pid], 50);
    const [, signal] = await exited;
    expect(signal).toBe('SIGTERM');
    expect(pidAlive(pid)).toBe(false);
  });

  it('one that ignores SIGTERM gets SIGKILL', async () => {
    const { c, pid } = await child('process.on("SIGTERM", () => {}); setInterval(() => {}, 1000)');
    const exited = once(c, 'exit');
    await endGroups([pid], 50);
    const [, signal] = await exited;
    expect(signal).toBe('SIGKILL');
  });

  it('nothing to end: returns at once', async () => {
    const t = Date.now();
    await endGroups([], 5000);
    expect(Date.now() - t).toBeLessThan(1000);
  });
});
