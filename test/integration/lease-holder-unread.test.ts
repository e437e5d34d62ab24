/**
 * A files-bus lease whose lock is kept fresh but whose holder file (`daemon.pid`) does not read — removed by
 * hand, or the instant a daemon takes or leaves the lock — is held all the same (bus/files/lock.ts
 * daemonStatus). Read as "no daemon", `up --fresh` moved the live daemon's conversation into history/ under
 * it, and the daemon went on writing a conversation that was no longer there.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { Project, waitFor } from '../helpers/harness.js';

let p: Project;
afterEach(async () => {
  await p?.stop();
});

describe('a live lease whose holder file does not read', () => {
  it('status says a daemon runs; up --fresh refuses (exit 3) and moves nothing', async () => {
    p = new Project();
    await p.recorder('claude1');
    await p.recorder('claude2');
    const { proc: daemon } = await p.startDaemon();
    p.send('c1_to_c2', 'one.json', { content: 'the old conversation' });
    await waitFor('msg_0001', () => p.archive()[0]?.delivered_at);
    const pid = (JSON.parse(readFileSync(p.path('daemon.pid'), 'utf8')) as { pid: number }).pid;
    rmSync(p.path('daemon.pid'));
    const before = { state: readFileSync(p.path('state.json'), 'utf8'), archive: p.ls('archive') };

    const s = JSON.parse((await p.cli(['status', '--json'])).stdout) as { daemon: { running: boolean } };
    expect(s.daemon.running).toBe(true);
    const fresh = await p.cli(['up', '--fresh', '--demo'], { env: { BATON_DAEMON: 'conversation' } });
    expect(fresh.exitCode, fresh.stdout + fresh.stderr).toBe(3);
    expect(existsSync(p.path('history'))).toBe(false);
    expect({ state: readFileSync(p.path('state.json'), 'utf8'), archive: p.ls('archive') }).toEqual(before);
    expect(daemon.exitCode).toBeNull();
    p.send('c2_to_c1', 'two.json', { content: 'still here' });
    await waitFor('msg_0002', () => p.archive()[1]?.delivered_at, 15_000);
    expect(pid).toBe(daemon.pid);
  });
});
