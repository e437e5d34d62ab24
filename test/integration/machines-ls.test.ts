/**
 * `baton ls --bus URL`: every conversation in a PostgreSQL database with its machines, from a folder with no
 * config and an empty machine registry — two conversations, each on two "machines" (helpers/machines.ts)
 * sharing one real server this file starts. Reads only: a look at a schema that is not there leaves none.
 */
import { execa } from 'execa';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, readRecorder, waitFor } from '../helpers/harness.js';
import { freePort, usePostgres } from '../helpers/postgres.js';
import { machinesConfig, query, useMachines } from '../helpers/machines.js';

const server = usePostgres();
const machine = useMachines();
const nowhere = mkdtempSync(join(tmpdir(), 'baton-ls-'));
afterAll(() => rmSync(nowhere, { recursive: true, force: true }));

/** `baton ls ARGS` from a folder with no config, an empty registry and no BATON_BUS_URL. */
const ls = (args: string[]) =>
  execa('node', [CLI, 'ls', ...args], {
    cwd: nowhere,
    env: { PATH: process.env.PATH, HOME: nowhere, XDG_STATE_HOME: join(nowhere, 'state') },
    extendEnv: false,
    reject: false,
  });

interface Row {
  conversation: string;
  ok: boolean;
  policy: string;
  turn: string;
  turn_host: string;
  seconds_in_turn: number;
  messages: number;
  run: string;
  waiting: number;
  held: Record<string, number>;
  config_recorded: { host: string } | null;
  machines: { host: string; alive: boolean; pid: number | null; since: string | null; agents: string[] }[];
}

describe('baton ls --bus', () => {
  it('lists every conversation of the database with its machines and turn holders, from anywhere', async () => {
    const [x, y] = [`lsx-${process.pid}`, `lsy-${process.pid}`];
    // x: both machines' daemons run; claude1 (alpha) opens, so claude2 (beta) holds the turn.
    const configX = machinesConfig(server.url, x);
    const [xa, xb] = [machine('alpha', configX), machine('beta', configX)];
    await xa.recorder('claude1');
    const logB = await xb.recorder('claude2');
    const daemonXa = await xa.daemon();
    const daemonXb = await xb.daemon();
    xa.send('c1_to_c2', 'opening.json', { content: 'hello from alpha' });
    await waitFor('msg_0001 read on beta', () =>
      readRecorder(logB).pastes.some((t) => t.startsWith('[baton] msg_0001 from')),
    );
    // y: only alpha's daemon runs (round robin); claude2 posts out of turn from alpha's shell: held in the database.
    const configY = machinesConfig(server.url, y, { turns: { policy: 'round_robin' } });
    const ya = machine('alpha', configY);
    await ya.recorder('claude1');
    const daemonYa = await ya.daemon();
    const early = await ya.cli(['post', '--as', 'claude2', 'too early']);
    expect(early.exitCode, early.stderr).toBe(0);

    const r = await ls(['--bus', server.url, '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const listing = JSON.parse(r.stdout) as { bus: string; schema_version: number; conversations: Row[] };
    expect(listing.schema_version).toBeGreaterThan(0);
    const [rx, ry] = [x, y].map((c) => listing.conversations.find((row) => row.conversation === c)!);
    expect(rx).toMatchObject({
      ok: true,
      policy: 'alternate',
      turn: 'claude2',
      turn_host: 'beta',
      messages: 1,
      run: 'running',
      waiting: 0,
    });
    expect(rx!.seconds_in_turn).toBeGreaterThanOrEqual(0);
    expect(rx!.seconds_in_turn).toBeLessThan(60);
    expect(rx!.machines.map((m) => [m.host, m.alive, m.pid, m.agents])).toEqual([
      ['alpha', true, daemonXa.proc.pid, ['claude1']],
      ['beta', true, daemonXb.proc.pid, ['claude2']],
    ]);
    for (const m of rx!.machines) expect(Date.parse(m.since!)).toBeGreaterThan(Date.now() - 120_000);
    expect(ry).toMatchObject({
      ok: true,
      policy: 'round_robin',
      turn: 'claude1',
      turn_host: 'alpha',
      messages: 0,
      run: 'running',
      waiting: 1,
      held: { c2_to_c1: 1 },
      config_recorded: { host: 'alpha' },
    });
    expect(ry!.machines.map((m) => [m.host, m.alive, m.pid, m.agents])).toEqual([
      ['alpha', true, daemonYa.proc.pid, ['claude1']],
      ['beta', false, null, ['claude2']],
    ]);

    // The same as text: a row per conversation, a line per machine.
    const text = await ls(['--bus', server.url]);
    expect(text.exitCode, text.stderr).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`${x}\\s+alternate\\s+claude2@beta\\s+\\d+s\\s+1\\s+running\\s+0`));
    expect(text.stdout).toMatch(new RegExp(`${y}\\s+round_robin\\s+claude1@alpha\\s+\\d+s\\s+0\\s+running\\s+1`));
    expect(text.stdout).toMatch(new RegExp(`beta: alive, pid ${daemonXb.proc.pid} since `));
    expect(text.stdout).toMatch(/beta: no daemon; agents: claude2/);

    // x's daemon on beta stops: x is still running on alpha, beta listed as gone with its last heartbeat.
    daemonXb.proc.kill('SIGTERM');
    await daemonXb.proc;
    const after = JSON.parse((await ls(['--bus', server.url, '--json'])).stdout) as { conversations: Row[] };
    const beta = after.conversations.find((c) => c.conversation === x)!.machines.find((m) => m.host === 'beta');
    expect(beta).toMatchObject({ alive: false, agents: ['claude2'] });
    expect(beta!.since).toBeTruthy();
  }, 120_000);

  it('reads only: a schema that is not there is listed empty and not made', async () => {
    const r = await ls(['--bus', server.url, '--schema', 'nothing_here', '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ schema_version: null, conversations: [] });
    const made = await query(server.url, "SELECT 1 FROM pg_namespace WHERE nspname = 'nothing_here'");
    expect(made).toEqual([]);
  });

  it('a database it cannot reach, or a URL that is none, is one line and exit 1; misuse exits 2', async () => {
    const port = await freePort();
    const refused = await ls(['--bus', `postgres://baton:secret@127.0.0.1:${port}/baton`]);
    expect(refused.exitCode).toBe(1);
    expect(refused.stdout).toBe('');
    const lines = refused.stderr.split('\n').filter((l) => l.trim());
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /cannot reach the database postgres:\/\/baton:\*\*\*@127\.0\.0\.1:\d+\/baton: connection refused/,
    );
    expect(refused.stderr).not.toContain('secret');

    const none = await ls(['--bus', 'db.example/baton']);
    expect(none.exitCode).toBe(1);
    expect(none.stderr.split('\n').filter((l) => l.trim())).toEqual([expect.stringMatching(/is not a PostgreSQL URL/)]);

    for (const args of [
      ['--schema', 'baton'],
      ['--bus'],
      ['--bus', server.url, 'extra'],
      ['--bus', server.url, '--schema', 'Bad-Name'],
    ]) {
      const misuse = await ls(args);
      expect(misuse.exitCode, args.join(' ')).toBe(2);
      expect(misuse.stdout).toBe('');
      expect(misuse.stderr.split('\n')[0], args.join(' ')).toMatch(/^baton ls: /);
    }
  });
});
