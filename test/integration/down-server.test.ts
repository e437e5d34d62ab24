/**
 * `baton down` (and `status`) from a shell attached to another tmux server: they act on the server the
 * conversation's sessions run on, as `baton up` recorded it, never on the caller's. `down` run from a pane of
 * another server once said "stopped daemon (pid …)" and left every agent session running.
 */
import { execa } from 'execa';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, Project } from '../helpers/harness.js';

let p: Project | undefined;
let other: { dir: string; env: Record<string, string> } | undefined;
afterEach(async () => {
  // Only the server this test started, named by its socket under the test's own folder (never $TMUX's).
  if (other) {
    const socket = join(other.dir, `tmux-${process.getuid!()}`, 'default');
    await execa('tmux', ['-S', socket, 'kill-server'], { env: other.env, reject: false });
  }
  other = undefined;
  await p?.stop();
  p = undefined;
});

describe('the tmux server a conversation runs on', () => {
  it('down and status from a shell of another tmux server act on the conversation’s own server', async () => {
    p = new Project();
    p.env.BATON_DAEMON = 'conversation'; // the former daemon per conversation, in the "watcher" session
    const proj = join(p.dir, 'proj');
    const baton = (args: string[], env: Record<string, string> = {}) =>
      execa('node', [CLI, ...args], { cwd: proj, env: { ...p!.env, ...env }, reject: false });
    expect(
      (await execa('node', [CLI, 'init', proj, '--kind', 'generic'], { env: p.env, reject: false })).exitCode,
    ).toBe(0);
    const up = await baton(['up', '--demo'], { BATON_DEMO_DELAY_MS: '100' });
    expect(up.exitCode, `${up.stdout}\n${up.stderr}`).toBe(0);
    const ours = async () =>
      (await p!.tmux(['list-sessions', '-F', '#{session_name}'])).stdout.split('\n').filter(Boolean).sort();
    expect(await ours()).toEqual([
      expect.stringMatching(/^proj-[0-9a-f]{4}-agent1$/),
      expect.stringMatching(/^proj-[0-9a-f]{4}-agent2$/),
      'watcher',
    ]);

    // Another tmux server, and a shell "attached" to it: $TMUX names its socket.
    other = { dir: join(p.dir, 'other'), env: { ...p.env, TMUX_TMPDIR: join(p.dir, 'other') } };
    await execa('mkdir', ['-p', other.dir]);
    expect((await execa('tmux', ['new-session', '-d', '-s', 'mine', 'sleep 600'], { env: other.env })).exitCode).toBe(
      0,
    );
    const socket = (await execa('tmux', ['display-message', '-p', '#{socket_path}'], { env: other.env })).stdout.trim();
    const inOther = { TMUX: `${socket},1,0` };

    const status = JSON.parse((await baton(['status', '--json'], inOther)).stdout) as {
      agents: Record<string, { alive: boolean; demo: boolean }>;
    };
    expect(Object.values(status.agents).map((a) => [a.alive, a.demo])).toEqual([
      [true, true],
      [true, true],
    ]);

    const down = await baton(['down'], inOther);
    expect(down.exitCode, down.stderr).toBe(0);
    expect(`${down.stdout}${down.stderr}`).toMatch(/session proj-[0-9a-f]{4}-agent1/);
    expect(await ours()).toEqual([]);
    // The caller's own server is left alone.
    expect((await execa('tmux', ['has-session', '-t', '=mine'], { env: other.env, reject: false })).exitCode).toBe(0);
  }, 60_000);
});
