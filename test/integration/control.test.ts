import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ControlClient, quoteArg } from '../../src/terminal/control.js';
import { Tmux } from '../../src/terminal/tmux.js';
import { alive, waitFor } from '../helpers/harness.js';

// A private tmux server per test: its own TMUX_TMPDIR, set for this process (the client inherits it);
// the test's own tmux calls name that server's socket explicitly.
let dir: string;
let saved: NodeJS.ProcessEnv;
const socket = () => join(dir, `tmux-${process.getuid?.() ?? 0}`, 'default');
const tmux = (args: string[]) => execa('tmux', ['-S', socket(), ...args], { reject: false });

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'baton-control-'));
  mkdirSync(dirname(socket()), { mode: 0o700 }); // where tmux itself would put it under TMUX_TMPDIR
  saved = { ...process.env };
  process.env.TMUX_TMPDIR = dir;
  delete process.env.TMUX;
  delete process.env.BATON_TMUX_SOCKET;
});

afterEach(async () => {
  await tmux(['kill-server']); // the private server, by its socket path
  process.env = saved;
  rmSync(dir, { recursive: true, force: true });
});

describe('quoteArg', () => {
  it('escapes what tmux would expand or split on, and nothing needs a shell', () => {
    expect(quoteArg('a b')).toBe('"a b"');
    expect(quoteArg('$HOME ~ #{x} ; "q" \\')).toBe('"\\$HOME \\~ \\#{x} \\; \\"q\\" \\\\"');
    expect(quoteArg('l1\nl2\tt\r\x01')).toBe('"l1\\nl2\\tt\\r\\001"');
  });
});

describe('ControlClient against a real tmux server', () => {
  it('no server: connect gives null (the caller falls back to one process per command)', async () => {
    expect(await ControlClient.connect([], process.env, 2000)).toBeNull();
  });

  it('set-buffer round-trips any text byte for byte, 1 MB included; errors come back as failures', async () => {
    await tmux(['new-session', '-d', '-s', 'a', 'cat']);
    const c = (await ControlClient.connect([], process.env, 2000))!;
    expect(c).not.toBeNull();
    const every = Array.from({ length: 127 }, (_, i) => String.fromCharCode(i + 1)).join('');
    const samples = [
      every,
      '-R',
      'emoji 🎉 日本語 ',
      '#{pane_id} $(id) `id` ; kill-server',
      `${'x\n'.repeat(500_000)}end`,
    ];
    for (const [i, s] of samples.entries()) {
      const out = join(dir, `b${i}`);
      // Pipelined: both commands are written before either answers; replies are matched in order.
      const [set, save] = await Promise.all([
        c.run(['set-buffer', '-b', `t${i}`, '--', s], 5000),
        c.run(['save-buffer', '-b', `t${i}`, out], 5000),
      ]);
      expect([i, set.ok, save.ok]).toEqual([i, true, true]);
      expect(readFileSync(out, 'utf8')).toBe(s);
    }
    const shown = await c.run(
      ['display-message', '-p', '-t', '=a:', '#{session_name} #{window_width}x#{window_height}'],
      2000,
    );
    expect(shown).toEqual({ ok: true, output: 'a 80x24', lost: false });
    const missing = await c.run(['send-keys', '-t', '=nosuch:', 'Enter'], 2000);
    expect(missing.ok).toBe(false);
    expect(missing.output).toMatch(/can't find/);
    c.close();
    expect((await c.run(['list-sessions'], 1000)).ok).toBe(false);
  });

  it('a server that stops answering: every command in flight comes back lost after its time, then a new client works', async () => {
    await tmux(['new-session', '-d', '-s', 'a', 'cat']);
    const c = (await ControlClient.connect([], process.env, 2000))!;
    expect((await c.run(['has-session', '-t', '=a'], 2000)).ok).toBe(true);
    const server = Number((await tmux(['display-message', '-p', '#{pid}'])).stdout);
    process.kill(server, 'SIGSTOP');
    try {
      // One given 5 s, then one given 300 ms: given up on after the 300 ms, both (the second is stuck behind the first).
      const first = c.run(['list-sessions'], 5000);
      const t0 = performance.now();
      const second = c.run(['has-session', '-t', '=a'], 300);
      expect(await second).toEqual({ ok: false, output: 'tmux did not answer within 300 ms', lost: true });
      expect(performance.now() - t0).toBeLessThan(2000);
      expect(await first).toMatchObject({ ok: false, lost: true });
      expect(c.alive).toBe(false);
    } finally {
      process.kill(server, 'SIGCONT');
    }
    const again = (await ControlClient.connect([], process.env, 2000))!;
    expect((await again.run(['has-session', '-t', '=a'], 2000)).ok).toBe(true);
    // An answer after a quiet spell longer than the time given: nothing in flight meanwhile is ever late.
    await new Promise((r) => setTimeout(r, 400));
    expect((await again.run(['has-session', '-t', '=a'], 300)).ok).toBe(true);
    again.close();
  });

  it('Tmux reattaches after the session it was attached to is killed, and never resizes a window', async () => {
    await tmux(['new-session', '-d', '-s', 'a', '-x', '200', '-y', '50', 'cat']);
    await tmux(['new-session', '-d', '-s', 'b', '-x', '120', '-y', '40', 'cat']);
    const t = new Tmux({ control: true });
    try {
      expect((await t.run(['display-message', '-p', '-t', '=a:', '#{window_width}x#{window_height}'])).stdout).toBe(
        '200x50',
      );
      const clients = async () =>
        (await tmux(['list-clients', '-F', '#{client_control_mode}'])).stdout.split('\n').filter((l) => l === '1')
          .length;
      expect(await clients()).toBe(1);
      const server = Number((await tmux(['display-message', '-p', '#{pid}'])).stdout);
      await execa('tmux', ['-S', socket(), 'kill-session', '-t', '=a'], { reject: false });
      await execa('tmux', ['-S', socket(), 'kill-session', '-t', '=b'], { reject: false });
      // The server left with no session exits; a new-session sent while it is still exiting joins it and is
      // lost with it (seen on a loaded machine), so the next server starts once this one is gone.
      await waitFor('the old server gone', () => !alive(server));
      await tmux(['new-session', '-d', '-s', 'b', '-x', '120', '-y', '40', 'cat']);
      // Whatever happened to the old client, commands keep working (through a new client or a process).
      for (let i = 0; i < 30 && (await t.run(['has-session', '-t', '=b'])).ok !== true; i++)
        await new Promise((r) => setTimeout(r, 100));
      // A loaded machine may answer the first command through the client that is going away (empty): ask again.
      let size = '';
      for (let i = 0; i < 30 && !size; i++) {
        size = (await t.run(['display-message', '-p', '-t', '=b:', '#{window_width}x#{window_height}'])).stdout;
        if (!size) await new Promise((r) => setTimeout(r, 100));
      }
      expect(size).toBe('120x40');
    } finally {
      t.close();
    }
  });
});
