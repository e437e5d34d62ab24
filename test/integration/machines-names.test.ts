/**
 * Machines that cannot be confused (docs/protocol.md §10), against a real PostgreSQL: `baton up` on a
 * machine whose name runs none of the agents, or whose name a live daemon elsewhere holds, starts nothing
 * and says so (it used to say "baton is running" and exit 0 — the second even started a copy of the other
 * machine's agents); `up` and `attach` speak only of this machine's agents; `init` writes a config for
 * several machines; `up --fresh` prints where the old conversation went with the URL intact and no password.
 */
import { execa } from 'execa';
import { cpSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI } from '../helpers/harness.js';
import { machinesConfig, useMachines } from '../helpers/machines.js';
import { usePostgres } from '../helpers/postgres.js';

const server = usePostgres();
const machine = useMachines();
let n = 0;
const conversation = () => `names-${process.pid}-${n++}`;

/** Two agents that run `cat` (on PATH everywhere): claude1 on alpha, claude2 on beta. */
function config(url = server.url): Record<string, unknown> {
  const c = machinesConfig(url, conversation());
  const agents = c.agents as Record<string, Record<string, unknown>>;
  for (const a of Object.values(agents)) a.command = 'cat';
  return c;
}

const sessions = async (m: { tmux(args: string[]): Promise<{ stdout: string }> }): Promise<string[]> =>
  (await m.tmux(['list-sessions', '-F', '#{session_name}'])).stdout.split('\n').filter(Boolean);

const errorLines = (stderr: string): string[] => stderr.split('\n').filter((l) => l.trim());

describe('machines that cannot be confused (PostgreSQL bus)', () => {
  it('a machine whose name runs none of the agents: up exits 2 naming it, the machines and BATON_HOST', async () => {
    const gamma = machine('gamma', config());
    const r = await gamma.cli(['up']);
    expect(r.exitCode, r.stderr + r.stdout).toBe(2);
    const lines = errorLines(r.stderr);
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/"gamma"/);
    expect(lines[0]).toMatch(/alpha \(claude1\)/);
    expect(lines[0]).toMatch(/beta \(claude2\)/);
    expect(lines[0]).toContain('BATON_HOST');
    expect(r.stdout).not.toContain('baton is running');
    expect(await sessions(gamma)).toEqual([]);
  }, 60_000);

  it('a name a live daemon elsewhere holds: up exits 3 naming its host and pid before any pane starts', async () => {
    const c = config();
    const a = machine('alpha', c);
    const holder = await a.daemon();
    const clone = machine('alpha', c); // another project folder that also says it is alpha
    const r = await clone.cli(['up']);
    expect(r.exitCode, r.stderr + r.stdout).toBe(3);
    const lines = errorLines(r.stderr);
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toContain(`pid ${holder.proc.pid} on ${hostname()}`);
    expect(lines[0]).toContain('"alpha"');
    expect(lines[0]).toContain('BATON_HOST');
    expect(await sessions(clone)).toEqual([]);
    expect(holder.proc.exitCode).toBeNull();
    // The machine whose daemon it is: up goes on (its agent started, the daemon left alone).
    const own = await a.cli(['up']);
    expect(own.exitCode, own.stderr + own.stdout).toBe(0);
    expect(own.stderr + own.stdout).toContain(`daemon already running (pid ${holder.proc.pid})`);
    expect(await sessions(a)).toContain('claude1');
  }, 60_000);

  it("up hints at this machine's agents only; attach names another machine's; never tmux's raw error", async () => {
    const b = machine('beta', config());
    const up = await b.cli(['up']);
    expect(up.exitCode, up.stderr + up.stdout).toBe(0);
    expect(up.stdout).toMatch(/watch an agent: +tmux .*attach -t claude2/);
    expect(up.stdout).not.toMatch(/attach -t claude1/);
    expect(up.stdout).toContain('claude1 runs on alpha');
    expect(await sessions(b)).not.toContain('claude1');

    const other = await b.cli(['attach', 'claude1']);
    expect(other.exitCode).toBe(2);
    expect(errorLines(other.stderr), other.stderr).toHaveLength(1);
    expect(other.stderr).toMatch(/claude1 runs on machine "alpha".*this machine is "beta"/);

    // No terminal here: tmux cannot attach, and says so in its own words — baton says it in one line.
    const here = await b.cli(['attach', 'claude2']);
    expect(here.exitCode).toBe(1);
    expect(errorLines(here.stderr), here.stderr).toHaveLength(1);
    expect(here.stderr).toMatch(/cannot attach to claude2's session "claude2": /);

    // A session that is not there (the agent's machine never ran up): one line, not tmux's.
    await b.killSession('claude2'); // on b's own server, named by its socket
    const gone = await b.cli(['attach', 'claude2']);
    expect(gone.exitCode).toBe(1);
    expect(errorLines(gone.stderr), gone.stderr).toHaveLength(1);
    expect(gone.stderr).toMatch(/no tmux session "claude2" for claude2.*baton up/);
  }, 60_000);

  it('up --fresh says where the old conversation went: the URL whole, its password hidden', async () => {
    const url = server.url.replace('postgres@', 'postgres:s3cret@'); // trust auth: the password is not checked
    const b = machine('beta', config(url));
    expect((await b.cli(['up'])).exitCode).toBe(0);
    const r = await b.cli(['up', '--fresh']);
    expect(r.exitCode, r.stderr + r.stdout).toBe(0);
    const out = r.stdout + r.stderr;
    expect(out).toMatch(
      new RegExp(
        `previous conversation moved to conversation "names-[^"]+@[^"]+" in postgres://postgres:\\*\\*\\*@127\\.0\\.0\\.1:${server.port}/postgres`,
      ),
    );
    expect(out).not.toContain('s3cret');
  }, 60_000);

  it('init --bus postgres --host writes a config for several machines', async () => {
    const p = machine('alpha', config());
    const dir = join(p.dir, 'proj');
    const r = await execa(
      'node',
      [
        CLI,
        'init',
        dir,
        '--kind',
        'shell',
        '--bus',
        'postgres',
        '--url',
        server.url,
        '--host',
        'shell1=alpha',
        '--host',
        'shell2=beta',
      ],
      { cwd: p.dir, env: p.env, reject: false },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const written = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    expect(written.bus).toEqual({ kind: 'postgres', url: server.url, conversation: 'proj' });
    expect(written.agents.shell1.host).toBe('alpha');
    expect(written.agents.shell2.host).toBe('beta');
    expect(r.stdout).toMatch(/on alpha: .*BATON_HOST=alpha baton up/);
    expect(r.stdout).toMatch(/on beta: .*BATON_HOST=beta baton up/);
    // An agent init does not make, or a machine without a name: a usage error (exit 2), nothing written.
    for (const bad of [
      ['--host', 'nobody=alpha'],
      ['--host', 'shell1'],
      ['--host', 'shell1=alpha'],
    ]) {
      const args = ['init', join(p.dir, 'bad'), '--kind', 'shell', ...bad];
      const refused = await execa('node', [CLI, ...args], { cwd: p.dir, env: p.env, reject: false });
      expect(refused.exitCode, `${bad.join(' ')}: ${refused.stderr}`).toBe(2);
    }
  }, 60_000);

  it('init --bus postgres names the conversation: a copy of the folder under another name joins it', async () => {
    const p = machine('alpha', config());
    const dir = join(p.dir, 'pair');
    const args = ['init', dir, '--kind', 'shell', '--bus', 'postgres', '--url', server.url];
    const made = await execa('node', [CLI, ...args, '--host', 'shell1=alpha', '--host', 'shell2=beta'], {
      cwd: p.dir,
      env: p.env,
      reject: false,
    });
    expect(made.exitCode, made.stderr).toBe(0);
    // "Copy the folder to each machine": beta's copy is called something else there. Left to the default (the
    // folder's name), it was another conversation, with messages 0.
    const copy = join(p.dir, 'pair-on-beta');
    cpSync(dir, copy, { recursive: true });
    const on = (host: string, folder: string, more: string[]) =>
      execa('node', [CLI, ...more], { cwd: folder, env: { ...p.env, BATON_HOST: host }, reject: false });
    const posted = await on('alpha', dir, ['post', '--as', 'shell2', 'from beta, through the database']);
    expect(posted.exitCode, posted.stderr).toBe(0);
    for (const [host, folder] of [
      ['alpha', dir],
      ['beta', copy],
    ] as const) {
      const r = await on(host, folder, ['status', '--json']);
      expect(r.exitCode, r.stderr).toBe(0);
      const report = JSON.parse(r.stdout) as { bus: { conversation: string }; held: Record<string, number> };
      expect(report.bus.conversation, host).toBe('pair');
      expect(report.held.shell2_to_shell1, host).toBe(1);
    }
  }, 60_000);
});
