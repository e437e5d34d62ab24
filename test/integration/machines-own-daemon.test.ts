/**
 * Conversations with a daemon of their own, beside the machine's daemon on one box: a PostgreSQL conversation
 * whose shell has other database settings than the machine's daemon was started with, and a files conversation
 * with BATON_DAEMON=conversation. `baton ls` once listed neither, and `up` said the PostgreSQL one got the session
 * "watcher" while that name was the other one's and it got "watcher-<folder>-…". Now `ls` lists both, marked as
 * having a daemon of their own, `up` names the session it started, and `down` takes the conversation off the list.
 */
import { execa } from 'execa';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { CLI, Project } from '../helpers/harness.js';
import { machinesConfig, useMachines } from '../helpers/machines.js';
import { usePostgres } from '../helpers/postgres.js';

const server = usePostgres();
const machine = useMachines();

interface Row {
  folder: string;
  bus: string;
  run?: string;
  own_daemon?: true;
  daemon_pid?: number | null;
}

describe('baton ls and conversations with a daemon of their own', () => {
  it('lists each, says which session its daemon got, and forgets it at down', async () => {
    const conv = (n: string) => `own-${n}-${process.pid}`;
    const agents = (s: string) => ({
      claude1: { kind: 'generic', host: 'alpha', target: `${s}-c1:0.0` },
      claude2: { kind: 'generic', host: 'alpha', target: `${s}-c2:0.0` },
    });
    // One user on one box: one state folder, one tmux server.
    const a = machine('alpha', machinesConfig(server.url, conv('a'), { agents: agents('oa') }));
    const b = machine('alpha', machinesConfig(server.url, conv('b'), { agents: agents('ob') }));
    const c = new Project({
      agents: { claude1: { kind: 'generic', target: 'oc-c1:0.0' }, claude2: { kind: 'generic', target: 'oc-c2:0.0' } },
    });
    for (const p of [b, c])
      Object.assign(p.env, { XDG_STATE_HOME: a.env.XDG_STATE_HOME!, TMUX_TMPDIR: a.env.TMUX_TMPDIR! });
    c.env.BATON_HOST = 'alpha';
    a.env.BATON_BUS_URL = server.url;
    b.env.BATON_BUS_URL = server.url;
    b.env.PGSSLMODE = 'disable'; // other database settings than the machine's daemon was started with
    c.env.BATON_DAEMON = 'conversation';

    const upA = await a.cli(['up']);
    expect(upA.exitCode, upA.stdout + upA.stderr).toBe(0);
    // c takes the session "watcher" first.
    const upC = await c.cli(['up']);
    expect(upC.exitCode, upC.stdout + upC.stderr).toBe(0);
    expect(upC.stdout + upC.stderr).toContain('daemon started in session watcher');
    const upB = await b.cli(['up']);
    expect(upB.exitCode, upB.stdout + upB.stderr).toBe(0);
    const said =
      /other database settings .*: this conversation gets a daemon of its own, in the session "([^"]+)"/.exec(
        upB.stdout + upB.stderr,
      );
    expect(said, upB.stdout + upB.stderr).not.toBeNull();
    expect(said![1]).not.toBe('watcher');
    expect((await b.tmux(['has-session', '-t', `=${said![1]}`])).exitCode).toBe(0);

    const ls = async () => {
      const r = await execa('node', [CLI, 'ls', '--json'], { env: { ...b.env }, cwd: tmpdir(), reject: false });
      expect(r.exitCode, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as { conversations: Row[] };
    };
    const rows = (await ls()).conversations;
    const row = (p: Project) => rows.find((r) => r.folder === p.dir);
    expect(row(a)).toMatchObject({ bus: 'postgres', run: 'running' });
    expect(row(a)!.own_daemon).toBeUndefined();
    expect(row(b)).toMatchObject({ bus: 'postgres', run: 'running', own_daemon: true });
    expect(row(c)).toMatchObject({ bus: 'files', run: 'running', own_daemon: true });
    const text = await execa('node', [CLI, 'ls'], { env: { ...b.env }, cwd: tmpdir(), reject: false });
    expect(text.stdout).toMatch(/running \(own daemon\)/);

    for (const p of [b, c]) expect((await p.cli(['down'])).exitCode).toBe(0);
    const after = (await ls()).conversations.map((r) => r.folder);
    expect(after).toContain(a.dir);
    expect(after).not.toContain(b.dir);
    expect(after).not.toContain(c.dir);
    expect((await a.cli(['down'])).exitCode).toBe(0);
  }, 120_000);
});
