/**
 * On the PostgreSQL bus a machine's daemon still watches its own agents' folders under message_dir: a
 * project moved away under it is not made again there either (bus/anchor.ts) — it is skipped and said, the
 * conversation lives on in the database, and `baton up` in the moved folder brings the machine back.
 * Two "machines" (helpers/machines.ts) on one tmux server, each with its own machine daemon (`baton up`).
 */
import { execa } from 'execa';
import { existsSync, renameSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { tmpdir } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, type Project, waitFor, writeMessage } from '../helpers/harness.js';
import { typedIn } from '../helpers/machine-fleet.js';
import { archived, machinesConfig, useMachines } from '../helpers/machines.js';
import { usePostgres } from '../helpers/postgres.js';

const server = usePostgres();
const machine = useMachines();
const moved: string[] = [];
afterEach(() => {
  for (const d of moved.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function ls(p: Project) {
  const r = await execa('node', [CLI, 'ls', '--json'], { env: p.env, cwd: tmpdir(), reject: false });
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as { conversations: Array<{ folder: string; run: string; skipped: string | null }> };
}

describe('a machine folder moved away (PostgreSQL bus)', () => {
  it('is skipped and said, never made again; up in its new place brings the machine back', async () => {
    const conv = `moved-${process.pid}`;
    const config = machinesConfig(server.url, conv, {
      agents: {
        claude1: { kind: 'generic', host: 'alpha', target: 'pma-c1:0.0' },
        claude2: { kind: 'generic', host: 'beta', target: 'pmb-c2:0.0' },
      },
    });
    const [a, b] = [machine('alpha', config), machine('beta', config)];
    // One tmux server, and beta's machine state outside its folder: the folder moves, they stay.
    b.env.TMUX_TMPDIR = a.env.TMUX_TMPDIR!;
    b.env.XDG_STATE_HOME = join(a.dir, 'state-beta');
    const logA = await a.recorder('pma-c1', { as: 'claude1' });
    const logB = await b.recorder('pmb-c2', { as: 'claude2' });
    for (const m of [a, b]) {
      const up = await m.cli(['up']);
      expect(up.exitCode, up.stdout + up.stderr).toBe(0);
    }
    a.send('c1_to_c2', 'one.json', { content: 'alpha to beta' });
    await waitFor('typed on beta', () => typedIn(logB, 'alpha to beta'));
    await waitFor('stamped', async () => (await archived(server.url, conv))[0]?.delivered_at);

    const to = `${b.dir}-moved`;
    moved.push(to);
    renameSync(b.dir, to);
    const row = async () => (await ls(b)).conversations[0];
    await waitFor('beta reported skipped', async () => Boolean((await row())?.skipped), 20_000);
    expect((await row())?.skipped).toMatch(/is gone \(moved away or removed\)/);
    await waitFor('beta no longer alive', async () => (await a.status())?.hosts.beta?.alive === false, 20_000);
    expect(existsSync(b.dir)).toBe(false);

    // Brought back from where it is now: beta's agent answers through its moved folder.
    const again = await execa('node', [CLI, 'up', '--config', join(to, 'config.json')], {
      env: b.env,
      cwd: to,
      reject: false,
    });
    expect(again.exitCode, again.stdout + again.stderr).toBe(0);
    writeMessage(join(to, 'messages', 'c2_to_c1'), 'two.json', { content: 'beta from its new place' });
    await waitFor('typed on alpha', () => typedIn(logA, 'beta from its new place'), 20_000);
    expect((await ls(b)).conversations.map((c) => [c.folder, c.run])).toEqual([[to, 'running']]);
    expect(typedIn(join(to, basename(logB)), 'alpha to beta')).toBe(1);
    expect(existsSync(b.dir)).toBe(false);
  }, 120_000);
});
