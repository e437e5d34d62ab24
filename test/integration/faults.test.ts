/**
 * Faults around the daemon rather than in the files (docs/protocol.md §6): the whole tmux server dying under it, and
 * commands that rewrite the conversation's files (`up --fresh`, `doctor --repair`) meeting a live daemon.
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { Project, readRecorder, scaleTime, waitFor } from '../helpers/harness.js';

let p: Project;
afterEach(async () => {
  await p?.stop();
});

describe('the tmux server gone', () => {
  it('kill-server under a running daemon: the message waits in its inbox, pane_unavailable once, delivered once the sessions are back', async () => {
    p = new Project();
    const t = scaleTime(p, 0.25);
    const logs = { claude1: await p.recorder('claude1'), claude2: await p.recorder('claude2') };
    const { proc: daemon } = await p.startDaemon();
    p.send('c1_to_c2', 'first.json', { content: 'before the crash' });
    await waitFor('msg_0001', () => p.archive()[0]?.delivered_at);
    await waitFor('claude2 read it', () => readRecorder(logs.claude2).pastes.length === 1);

    // The daemon runs outside tmux (as under systemd or a plain terminal): killing this test's private
    // server takes only the agents' panes with it.
    expect(await p.killServer()).toBe(0);
    await waitFor('server gone', async () => (await p.tmux(['list-sessions'])).exitCode !== 0);
    p.send('c2_to_c1', 'reply.json', { content: 'after the crash' });
    await waitFor(
      'pane_unavailable',
      () => p.events().some((e) => e.event === 'pane_unavailable' && e.agent === 'claude1'),
      15_000,
    );
    // Long enough for several retries (backoff 250 ms, 500 ms, 1 s, …, here scaled): still waiting, still logged once.
    await sleep(t.paneRetryMs.slice(0, 4).reduce((a, b) => a + b));
    expect(p.archive()).toHaveLength(1);
    expect(p.ls('c2_to_c1')).toEqual(['reply.json']);
    expect(p.state()).toMatchObject({ current_turn: 'claude2', message_counter: 1 });
    expect(p.events().filter((e) => e.event === 'pane_unavailable')).toHaveLength(1);
    expect(daemon.exitCode).toBeNull();

    // A new server with the same sessions (the recorders append to the same logs): delivered, once, unflagged.
    // Each session takes its name only once its recorder reads, or the paste could beat the program.
    await p.recorderWhenReady('claude1');
    await p.recorderWhenReady('claude2');
    await waitFor('msg_0002 delivered', () => p.archive()[1]?.delivered_at, 20_000);
    expect(p.archive()[1]).toMatchObject({ id: 'msg_0002', source_file: 'reply.json', content: 'after the crash' });
    expect(p.archive()[1]!.redelivered).toBeUndefined();
    await waitFor('claude1 read it', () => readRecorder(logs.claude1).pastes.length === 1);
    expect(readRecorder(logs.claude1).pastes[0]!.split('\n')[0]).toBe(
      '[baton] msg_0002 from claude2 (reply to msg_0001)',
    );
    await waitFor('pane_available', () =>
      p.events().some((e) => e.event === 'pane_available' && e.agent === 'claude1'),
    );

    // And the conversation goes on in both directions.
    p.send('c1_to_c2', 'third.json', { content: 'all is well' });
    await waitFor('msg_0003', () => p.archive()[2]?.delivered_at, 15_000);
    await waitFor('claude2 read msg_0003', () => readRecorder(logs.claude2).pastes.length === 2);
    expect(readRecorder(logs.claude2).pastes[1]!.split('\n')[0]).toBe(
      '[baton] msg_0003 from claude1 (reply to msg_0002)',
    );
    expect(readRecorder(logs.claude1).stray + readRecorder(logs.claude2).stray).toBe('');
    expect(daemon.exitCode).toBeNull();
  });
});

describe('up --fresh and doctor --repair against a live daemon', () => {
  /** Recorders, a daemon outside tmux, and one delivered message: a conversation worth protecting. */
  async function running() {
    p = new Project();
    const log2 = await p.recorder('claude1').then(() => p.recorder('claude2'));
    const { proc } = await p.startDaemon();
    p.send('c1_to_c2', 'one.json', { content: 'the old conversation' });
    await waitFor('msg_0001', () => p.archive()[0]?.delivered_at);
    p.send('c1_to_c2', 'waiting.json', { content: 'held: claude2 has the turn' });
    await waitFor('held', () => p.events().some((e) => e.event === 'held'));
    const pid = (JSON.parse(readFileSync(p.path('daemon.pid'), 'utf8')) as { pid: number }).pid;
    return { daemon: proc, pid, log2 };
  }

  it('a holder they cannot stop (another host on a shared folder): both exit 3 naming its pid and touch nothing', async () => {
    const { daemon, pid } = await running();
    // The folder is shared with another machine whose daemon holds it: simulated by the pid file naming
    // another host. Its lock stays fresh (our daemon keeps refreshing it), and nobody here may signal it.
    const holder = JSON.parse(readFileSync(p.path('daemon.pid'), 'utf8')) as Record<string, unknown>;
    writeFileSync(p.path('daemon.pid'), `${JSON.stringify({ ...holder, host: `not-${hostname()}` })}\n`);
    const before = {
      state: readFileSync(p.path('state.json'), 'utf8'),
      archive: p.ls('archive'),
      inbox: p.ls('c1_to_c2'),
    };

    const fresh = await p.cli(['up', '--fresh', '--demo']);
    expect(fresh.exitCode, fresh.stdout + fresh.stderr).toBe(3);
    expect(fresh.stderr).toContain(`pid ${pid}`);
    const repair = await p.cli(['doctor', '--repair']);
    expect(repair.exitCode, repair.stdout + repair.stderr).toBe(3);
    expect(repair.stderr).toContain(`pid ${pid}`);

    // Nothing set aside, rewritten or started; the holder was not signalled and still delivers.
    expect(existsSync(p.path('history'))).toBe(false);
    expect({
      state: readFileSync(p.path('state.json'), 'utf8'),
      archive: p.ls('archive'),
      inbox: p.ls('c1_to_c2'),
    }).toEqual(before);
    expect((await p.tmux(['list-sessions', '-F', '#{session_name}'])).stdout.split('\n').sort()).toEqual([
      'claude1',
      'claude2',
    ]);
    expect(daemon.exitCode).toBeNull();
    p.send('c2_to_c1', 'two.json', { content: 'still here' });
    await waitFor('msg_0003', () => p.archive()[2]?.delivered_at, 15_000); // msg_0002, then the held waiting.json
    expect(p.archive().map((r) => r.source_file)).toEqual(['one.json', 'two.json', 'waiting.json']);
  });

  it('up --fresh with a live daemon on this host stops it cleanly first, then sets the old conversation aside', async () => {
    const { daemon, pid, log2 } = await running();
    const fresh = await p.cli(['up', '--fresh', '--demo']);
    expect(fresh.exitCode, fresh.stdout + fresh.stderr).toBe(0);
    // The old daemon got SIGTERM: it finished and exited 0 before anything moved.
    const old = await daemon;
    expect(old.exitCode).toBe(0);
    expect(p.events().find((e) => e.event === 'stopped' && e.pid === pid)).toBeUndefined(); // its events.jsonl went with it
    const history = p.ls('history');
    expect(history).toHaveLength(1);
    const aside = (...q: string[]) => p.path('history', history[0]!, ...q);
    expect(readdirSync(aside('archive'))).toEqual(['msg_0001.json']);
    expect(readdirSync(aside('c1_to_c2'))).toEqual(['waiting.json']);
    expect(JSON.parse(readFileSync(aside('state.json'), 'utf8'))).toMatchObject({
      message_counter: 1,
      current_turn: 'claude2',
    });
    expect(readFileSync(aside('events.jsonl'), 'utf8')).toContain(`"event":"stopped","pid":${pid}`);

    // A new conversation: a new daemon (in the watcher session), state from scratch, IDs from 1 again.
    // The recorders' sessions are not baton's: used as they are, never killed.
    const now = JSON.parse(readFileSync(p.path('daemon.pid'), 'utf8')) as { pid: number };
    expect(now.pid).not.toBe(pid);
    // (What setAside leaves — no archive, nothing waiting, a fresh state — is the contract's: admin.contract.ts.)
    p.send('c1_to_c2', 'new.json', { content: 'a new conversation' });
    await waitFor('new msg_0001', () => p.archive()[0]?.delivered_at, 15_000);
    expect(p.archive()[0]).toMatchObject({ id: 'msg_0001', reply_to: null, content: 'a new conversation' });
    await waitFor('claude2 read it', () => readRecorder(log2).pastes.length === 2);
    expect(readRecorder(log2).pastes[1]!.split('\n')[0]).toBe('[baton] msg_0001 from claude1');
  });
});
