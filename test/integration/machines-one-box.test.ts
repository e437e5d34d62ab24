/**
 * The README's way to try the PostgreSQL bus on one machine: two project folders of one conversation, one
 * user, one tmux server, `BATON_HOST=alpha baton up` in one and `BATON_HOST=beta baton up` in the other.
 * Each machine name gets a machine daemon of its own (app/machine/identity.ts); the daemon alpha's `up`
 * started used to take beta's conversation too and serve it as alpha — refused, "another baton daemon holds
 * conversation … on host alpha" — and `up --fresh` in either failed the same way.
 */
import { execa } from 'execa';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { CLI, type Project, waitFor } from '../helpers/harness.js';
import { typedIn } from '../helpers/machine-fleet.js';
import { machinesConfig, useMachines } from '../helpers/machines.js';
import { usePostgres } from '../helpers/postgres.js';

const server = usePostgres();
const machine = useMachines();

/** `baton ls --json` from a folder that is no project's, in a shell with no BATON_HOST. */
async function ls(p: Project) {
  const r = await execa('node', [CLI, 'ls', '--json'], {
    env: { ...p.env, BATON_HOST: '' },
    cwd: tmpdir(),
    reject: false,
  });
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as {
    machines: Array<{ host: string | null; daemon: { pid: number } | null }>;
    conversations: Array<{ folder: string; host: string | null; run: string; skipped: string | null }>;
  };
}

describe('two machine names on one box (PostgreSQL bus)', () => {
  it('BATON_HOST=alpha and =beta each get a machine daemon; messages flow both ways; up --fresh too', async () => {
    const conv = `onebox-${process.pid}`;
    const config = machinesConfig(server.url, conv, {
      agents: {
        claude1: { kind: 'generic', host: 'alpha', target: 'oba-c1:0.0' },
        claude2: { kind: 'generic', host: 'beta', target: 'obb-c2:0.0' },
      },
    });
    const [a, b] = [machine('alpha', config), machine('beta', config)];
    // One user on one box: one state folder, one tmux server.
    b.env.XDG_STATE_HOME = a.env.XDG_STATE_HOME!;
    b.env.TMUX_TMPDIR = a.env.TMUX_TMPDIR!;
    const logA = await a.recorder('oba-c1', { as: 'claude1' });
    const logB = await b.recorder('obb-c2', { as: 'claude2' });
    for (const m of [a, b]) {
      const up = await m.cli(['up']);
      expect(up.exitCode, `${m.host}: ${up.stdout}${up.stderr}`).toBe(0);
    }

    a.send('c1_to_c2', 'one.json', { content: 'alpha to beta' });
    await waitFor('typed on beta', () => typedIn(logB, 'alpha to beta'));
    b.send('c2_to_c1', 'two.json', { content: 'beta to alpha' });
    await waitFor('typed on alpha', () => typedIn(logA, 'beta to alpha'));
    const hosts = (await a.status())!.hosts;
    expect(hosts.alpha?.alive && hosts.beta?.alive).toBe(true);
    expect(hosts.alpha?.pid).not.toBe(hosts.beta?.pid);

    // ls lists both, each with its machine name and daemon.
    const listed = await ls(a);
    expect(listed.conversations.map((c) => [c.folder, c.host, c.run, c.skipped])).toEqual([
      [a.dir, 'alpha', 'running', null],
      [b.dir, 'beta', 'running', null],
    ]);
    const daemons = Object.fromEntries(listed.machines.map((m) => [m.host, m.daemon?.pid]));
    expect(daemons).toMatchObject({ alpha: hosts.alpha?.pid, beta: hosts.beta?.pid });
    const text = await execa('node', [CLI, 'ls'], { env: { ...a.env, BATON_HOST: '' }, cwd: tmpdir(), reject: false });
    expect(text.stdout).toContain(`the daemon of machine name beta (BATON_HOST): pid ${hosts.beta?.pid}`);
    expect(text.stdout).toMatch(new RegExp(`${b.dir} +beta +postgres:${conv} `));

    // up --fresh on beta: a new conversation for both machines, and it flows both ways again.
    const fresh = await b.cli(['up', '--fresh']);
    expect(fresh.exitCode, fresh.stdout + fresh.stderr).toBe(0);
    a.send('c1_to_c2', 'three.json', { content: 'alpha after fresh' });
    await waitFor('typed on beta after fresh', () => typedIn(logB, 'alpha after fresh'), 20_000);
    b.send('c2_to_c1', 'four.json', { content: 'beta after fresh' });
    await waitFor('typed on alpha after fresh', () => typedIn(logA, 'beta after fresh'), 20_000);
    expect((await b.status())!.message_counter).toBe(2);
  }, 120_000);
});
