/**
 * The gap between a paste and its stamp, tried the way a hostile world would, on a private tmux server with
 * real processes and real signals: the pane replaced, the tmux server restarted or the agent dying between a
 * paste and its Enter; a person scrolling; a daemon paused past its lease; a one-shot command answering
 * meanwhile; a shell kind; a program without bracketed paste; a state that contradicts the archive. The Enter
 * delay is widened (enter_delay_ms) instead of racing it.
 */
import { execa } from 'execa';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, Project, readRecorder, scaleTime, waitFor } from '../helpers/harness.js';
import type { Timing } from '../../src/lib/timing.js';

let p: Project | undefined;
afterEach(async () => {
  await p?.stop();
  p = undefined;
});

const pasted = (log: string) => () => readRecorder(log).unsubmitted.length === 1;
const delivered = () => p!.archive()[0]?.delivered_at;
/**
 * A paused holder's lock is stale for a taker: untouched past the stale time, and past the window in which
 * a live holder's lock still counts as fresh (bus/files/lock.ts: half the stale time plus 1.5 s, as a lock
 * taken less than 1.5 s ago may carry the mtime the precision probe set, up to 1 s ahead: lib/lock-dir.ts).
 */
const lockStale = (t: Timing) => () => {
  const age = Date.now() - statSync(p!.path('daemon.lock')).mtimeMs;
  return age > Math.max(t.lockStaleMs, t.lockStaleMs / 2 + 1500);
};
const enters = (log: string) => [...readRecorder(log).raw.toString('latin1')].filter((c) => c === '\r').length;

describe('between the paste and the Enter', () => {
  it('the session replaced: the message is typed again in full, flagged, into the new pane; never an Enter alone', async () => {
    p = new Project({ delivery: { enter_delay_ms: 2000 } });
    await p.recorder('claude1');
    const first = await p.recorder('claude2');
    await p.startDaemon();
    p.send('c1_to_c2', 'm.json', { content: 'are you there?' });
    await waitFor('pasted, no Enter yet', pasted(first));
    await p.killSession('claude2');
    const second = await p.recorderWhenReady('claude2', { log: join(p.dir, 'claude2-again.log') });
    await waitFor('delivered', delivered, 20_000);
    const got = readRecorder(second);
    expect(got.stray).toBe(''); // no Enter alone
    expect(got.pastes.map((t) => t.split('\n')[0])).toEqual(['[baton] msg_0001 from claude1 (redelivered)']);
    expect(got.pastes[0]).toContain('are you there?');
    expect(p.archive()[0]!.redelivered).toBe(true);
    expect(enters(first)).toBe(0);
  });

  it("the tmux server restarted, pane ids reused the other way round: the Enter meant for claude2 never reaches claude1's pane", async () => {
    p = new Project({ delivery: { enter_delay_ms: 2000 } });
    await p.recorder('claude1'); // %0
    const old2 = await p.recorder('claude2'); // %1
    await p.startDaemon();
    p.send('c1_to_c2', 'm.json', { content: 'before the restart' });
    await waitFor('pasted, no Enter yet', pasted(old2));
    await p.killServer();
    // A new server: claude2 first this time, so claude1 gets %1 — the id the paste went to.
    const new2 = await p.recorderWhenReady('claude2', { log: join(p.dir, 'claude2-new.log') });
    const new1 = await p.recorderWhenReady('claude1', { log: join(p.dir, 'claude1-new.log') });
    expect((await p.tmux(['display-message', '-p', '-t', '=claude1:', '#{pane_id}'])).stdout.trim()).toBe('%1');
    await waitFor('delivered', delivered, 20_000);
    expect(readRecorder(new1).raw.length).toBe(0); // nothing at all, no Enter
    const got = readRecorder(new2);
    expect(got.stray).toBe('');
    expect(got.pastes.map((t) => t.split('\n')[0])).toEqual(['[baton] msg_0001 from claude1 (redelivered)']);
    expect(p.archive()[0]!.redelivered).toBe(true);
  });

  it('the agent exits after reading the paste: not stamped delivered; typed again, flagged, once it runs again', async () => {
    p = new Project({ delivery: { enter_delay_ms: 1500 } });
    await p.recorder('claude1');
    const dying = await p.recorder('claude2', { flags: ['--exit-after-paste'] });
    await p.tmux(['set-option', '-t', '=claude2:', 'remain-on-exit', 'on']);
    await p.startDaemon();
    p.send('c1_to_c2', 'm.json', { content: 'read this and die' });
    await waitFor(
      'the agent died',
      async () => (await p!.tmux(['display-message', '-p', '-t', '=claude2:', '#{pane_dead}'])).stdout.trim() === '1',
    );
    // Its Enter step over: the daemon found the pane dead (or, wrongly, stamped the message).
    await waitFor(
      'the Enter step over',
      () =>
        p!.archive()[0]?.delivered_at || p!.events().some((e) => e.event === 'delivery_failed' && e.id === 'msg_0001'),
    );
    expect(p.archive()[0]!.delivered_at).toBeNull();
    // Started again in the same pane (same pane id, a new process); held in copy mode until it reads.
    const again = join(p.dir, 'claude2-again.log');
    await p.tmux([
      'respawn-pane',
      '-t',
      '=claude2:',
      `exec node ${JSON.stringify(join(import.meta.dirname, '..', 'fixtures', 'recorder.mjs'))} ${JSON.stringify(again)}`,
      ';',
      'copy-mode',
      '-t',
      '=claude2:',
    ]);
    await waitFor('recorder ready', async () =>
      (await p!.tmux(['capture-pane', '-p', '-t', '=claude2:'])).stdout.includes('recorder ready'),
    );
    await p.tmux(['send-keys', '-X', '-t', '=claude2:', 'cancel']);
    await waitFor('delivered', delivered, 20_000);
    expect(readRecorder(again).pastes.map((t) => t.split('\n')[0])).toEqual([
      '[baton] msg_0001 from claude1 (redelivered)',
    ]);
    expect(readRecorder(again).stray).toBe('');
    expect(enters(dying)).toBe(0);
    expect(p.archive()[0]!.redelivered).toBe(true);
  });

  it('a person scrolling (copy mode) holds the Enter: pressed once they stop, the text typed once, unflagged', async () => {
    p = new Project({ delivery: { enter_delay_ms: 1500 } });
    await p.recorder('claude1');
    const log2 = await p.recorder('claude2');
    await p.startDaemon();
    p.send('c1_to_c2', 'm.json', { content: 'scroll past me' });
    await waitFor('pasted, no Enter yet', pasted(log2));
    await p.tmux(['copy-mode', '-t', '=claude2:']);
    // The Enter delay over, the Enter refused: the pane is in copy mode.
    await waitFor('the Enter held', () =>
      p!.events().some((e) => e.event === 'delivery_failed' && String(e.error).includes('copy mode')),
    );
    expect(p.archive()[0]!.delivered_at).toBeNull(); // the Enter would have been swallowed
    expect(enters(log2)).toBe(0);
    await p.tmux(['send-keys', '-X', '-t', '=claude2:', 'cancel']);
    await waitFor('delivered', delivered, 20_000);
    const got = readRecorder(log2);
    expect(got.typed).toHaveLength(1);
    expect(got.pastes).toHaveLength(1);
    expect(p.archive()[0]!.redelivered).toBeUndefined();
  });
});

describe('a daemon that lost its lease', () => {
  it('paused past it while another took over: it presses no key and writes no record, then exits', async () => {
    p = new Project({ delivery: { enter_delay_ms: 3000 } });
    const t = scaleTime(p, 0.25);
    await p.recorder('claude1');
    const log2 = await p.recorder('claude2');
    const d1 = await p.startDaemon();
    p.send('c1_to_c2', 'm.json', { content: 'paused in the middle' });
    await waitFor('pasted, no Enter yet', pasted(log2));
    process.kill(d1.proc.pid!, 'SIGSTOP');
    await waitFor('its lock stale', lockStale(t), 20_000);
    const d2 = await p.startDaemon(); // takes over the stale lock
    await waitFor('delivered by the second daemon', delivered, 30_000);
    const record = readFileSync(p.path('archive', 'msg_0001.json'), 'utf8');
    expect(JSON.parse(record).redelivered).toBe(true);
    process.kill(d1.proc.pid!, 'SIGCONT');
    const r1 = await d1.proc;
    expect(r1.exitCode, String(r1.all)).toBe(3); // fenced; another daemon holds the lease
    await sleep(1000);
    expect(readFileSync(p.path('archive', 'msg_0001.json'), 'utf8')).toBe(record); // untouched
    // The second daemon's two Enters only: one alone first, so the paste the first left unsubmitted goes
    // on its own (leftover.ts: never two copies in one submit), then the flagged copy's.
    expect(enters(log2)).toBe(2);
    expect(readRecorder(log2).pastes.map((t) => t.split('\n')[0])).toEqual([
      '[baton] msg_0001 from claude1',
      '[baton] msg_0001 from claude1 (redelivered)',
    ]);
    expect(readRecorder(log2).stray).toBe('');
    expect(d2.proc.exitCode).toBeNull();
    p.send('c2_to_c1', 'r.json', { content: 'still delivering' });
    await waitFor('msg_0002', () => p!.archive()[1]?.delivered_at);
  });

  it('paused while a one-shot command answered a request: it takes the lease again and goes on', async () => {
    p = new Project();
    const t = scaleTime(p, 0.25);
    const log1 = await p.recorder('claude1');
    await p.recorder('claude2');
    const d = await p.startDaemon();
    process.kill(d.proc.pid!, 'SIGSTOP');
    await waitFor('its lock stale', lockStale(t), 20_000);
    const sent = await p.cli(['send', '--to', 'claude1', 'while the daemon sleeps']);
    expect(sent.exitCode, sent.stdout + sent.stderr).toBe(0);
    await waitFor('typed by the one-shot', () =>
      readRecorder(log1).pastes.some((t) => t.includes('while the daemon sleeps')),
    );
    process.kill(d.proc.pid!, 'SIGCONT');
    await waitFor(
      'started again in the same process',
      () => p!.events().filter((e) => e.event === 'started' && e.pid === d.proc.pid).length === 2,
      30_000,
    );
    expect(d.proc.exitCode).toBeNull();
    const status = JSON.parse((await p.cli(['status', '--json'])).stdout) as {
      daemon: { running: boolean; pid: number };
    };
    expect(status.daemon).toEqual({ running: true, pid: d.proc.pid });
    p.send('c1_to_c2', 'm.json', { content: 'after the wake-up' });
    await waitFor('delivered', delivered);
  });
});

describe('a request while the daemon is paused', () => {
  it('asked while its lease is still fresh: answered here as soon as the lease goes stale, not left unanswered', async () => {
    p = new Project();
    scaleTime(p, 0.25);
    const log1 = await p.recorder('claude1');
    await p.recorder('claude2');
    const d = await p.startDaemon();
    process.kill(d.proc.pid!, 'SIGSTOP');
    try {
      // At once: the daemon still looks alive, so the command waits for it — and answers itself once the
      // paused daemon's lease is stale (3 s, here scaled), instead of waiting out its 15 s and saying nothing was done.
      const started = Date.now();
      const sent = await p.cli(['send', '--to', 'claude1', 'asked of a paused daemon']);
      expect(sent.exitCode, sent.stdout + sent.stderr).toBe(0);
      expect(Date.now() - started).toBeLessThan(12_000);
      expect(readRecorder(log1).pastes.some((t) => t.includes('asked of a paused daemon'))).toBe(true);
    } finally {
      process.kill(d.proc.pid!, 'SIGCONT');
    }
    await waitFor(
      'started again in the same process',
      () => p!.events().filter((e) => e.event === 'started' && e.pid === d.proc.pid).length === 2,
      30_000,
    );
  });
});

describe('receivers that would run or split a message', () => {
  it('a shell-kind agent (a real bash) gets one inert line; nothing in the content runs; baton show prints it', async () => {
    p = new Project();
    const proj = join(p.dir, 'proj');
    const env = { ...p.env, SHELL: '/bin/bash' };
    const baton = (args: string[]) => execa('node', [CLI, ...args], { cwd: proj, env, reject: false });
    expect((await execa('node', [CLI, 'init', proj, '--kind', 'shell'], { env, reject: false })).exitCode).toBe(0);
    const shell2 = `=${JSON.parse(readFileSync(join(proj, 'config.json'), 'utf8')).agents.shell2.session}:`;
    const up = await baton(['up']);
    expect(up.exitCode, up.stdout + up.stderr).toBe(0);
    const marks = [1, 2, 3, 4].map((i) => join(p!.dir, `ran-${i}`));
    const hostile = `$(touch ${marks[0]})\n\`touch ${marks[1]}\`\ntouch ${marks[2]}; echo 'unbalanced "quote`;
    const post = await execa('node', [CLI, 'post', '--as', 'shell1', '--', hostile], {
      cwd: proj,
      env: { ...env, BATON_CONFIG: join(proj, 'config.json') },
      reject: false,
    });
    expect(post.exitCode, post.stderr).toBe(0);
    await waitFor(
      'delivered',
      () =>
        existsSync(join(proj, 'messages', 'archive', 'msg_0001.json')) &&
        JSON.parse(readFileSync(join(proj, 'messages', 'archive', 'msg_0001.json'), 'utf8')).delivered_at,
      20_000,
    );
    const sent = await baton(['send', '--to', 'shell2', `$(touch ${marks[3]})`]);
    expect(sent.exitCode, sent.stdout).toBe(0);
    await sleep(1500);
    expect(marks.filter(existsSync)).toEqual([]);
    const screen = (await p.tmux(['capture-pane', '-p', '-t', shell2])).stdout;
    expect(screen).toContain('# baton: msg_0001 from shell1 - read it with: baton show msg_0001');
    expect(screen).toContain('# baton: user_0001 from user - read it with: baton show user_0001');
    const show = await baton(['show', 'msg_0001']);
    expect(show.stdout).toContain(hostile);
    // The shell still works: nothing was left half-typed (an open quote would swallow the next line).
    await p.tmux(['send-keys', '-t', shell2, '-l', `touch ${join(p.dir, 'shell-ok')}`]);
    await p.tmux(['send-keys', '-t', shell2, 'Enter']);
    await waitFor('the shell still runs commands', () => existsSync(join(p!.dir, 'shell-ok')));
    expect((await baton(['down'])).exitCode).toBe(0);
  });

  it('a program that reads lines (python3 input(), no bracketed paste) gets each message as one line, whoever started it', async () => {
    p = new Project();
    const script = join(p.dir, 'lines.py');
    writeFileSync(
      script,
      'import sys\nlog = open(sys.argv[1], "a")\nwhile True:\n    log.write(input() + "\\n")\n    log.flush()\n',
    );
    const lines = (name: string) => join(p!.dir, `${name}.lines`);
    // claude2 started by baton up (its tracker says: no bracketed paste); claude1 a person's own pane
    // (its terminal says: line by line).
    p.writeConfig({
      agents: {
        claude1: { kind: 'generic', target: 'own1:0.0' },
        claude2: { kind: 'generic', command: `python3 ${script} ${lines('claude2')}` },
      },
      directions: { c1_to_c2: ['claude1', 'claude2'], c2_to_c1: ['claude2', 'claude1'] },
      delivery: { enter_delay_ms: 50 },
    });
    await p.tmux(['new-session', '-d', '-s', 'own1', '-x', '200', '-y', '50', `python3 ${script} ${lines('claude1')}`]);
    const up = await p.cli(['up']);
    expect(up.exitCode, up.stdout + up.stderr).toBe(0);
    p.send('c1_to_c2', 'a.json', { content: 'one\ntwo\nthree' });
    await waitFor(
      'claude2 read a line',
      () => existsSync(lines('claude2')) && readFileSync(lines('claude2'), 'utf8').length > 0,
      20_000,
    );
    p.send('c2_to_c1', 'b.json', { content: 'four\nfive' });
    await waitFor(
      'claude1 read a line',
      () => existsSync(lines('claude1')) && readFileSync(lines('claude1'), 'utf8').length > 0,
      20_000,
    );
    await sleep(1000);
    const got2 = readFileSync(lines('claude2'), 'utf8').split('\n').filter(Boolean);
    const got1 = readFileSync(lines('claude1'), 'utf8').split('\n').filter(Boolean);
    expect(got2).toHaveLength(1);
    expect(got2[0]).toMatch(
      /^\[baton\] msg_0001 from claude1 ⏎ one ⏎ two ⏎ three ⏎ {2}⏎ \[baton\] reply to claude1 with: baton post/,
    );
    expect(got1).toHaveLength(1);
    expect(got1[0]).toMatch(/^\[baton\] msg_0002 from claude2 \(reply to msg_0001\) ⏎ four ⏎ five ⏎/);
    expect((await p.cli(['down'])).exitCode).toBe(0);
  });
});

describe('start-up', () => {
  it('refuses a state.json whose turn contradicts the archive, naming baton doctor --repair', async () => {
    p = new Project();
    const record = {
      id: 'msg_0001',
      reply_to: null,
      content: 'hi',
      sender: 'claude1',
      receiver: 'claude2',
      type: 'message',
      direction: 'c1_to_c2',
      source_file: 'a.json',
      received_at: new Date().toISOString(),
      delivered_at: new Date().toISOString(),
    };
    await execa('mkdir', ['-p', p.path('archive')]);
    writeFileSync(p.path('archive', 'msg_0001.json'), JSON.stringify(record));
    // claude1 spoke last, yet the state gives it the turn again: it could speak twice.
    writeFileSync(
      p.path('state.json'),
      JSON.stringify({
        current_turn: 'claude1',
        last_message_id: 'msg_0001',
        message_counter: 1,
        pending_reply_to: 'msg_0001',
      }),
    );
    const r = await p.cli(['daemon']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('contradicts the archive: current_turn is "claude1", the archive says "claude2"');
    expect(r.stderr).toContain('baton doctor --repair');
    expect((await p.cli(['doctor', '--repair'])).exitCode).toBe(0);
    expect(p.state()).toMatchObject({ current_turn: 'claude2' });
  });
});
