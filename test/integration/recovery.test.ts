import { execa } from 'execa';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { procStat } from '../../src/lib/process.js';
import { alive, Project, readRecorder, ROOT, scaleTime, waitFor } from '../helpers/harness.js';

let p: Project;
afterEach(async () => {
  await p?.stop();
});

/** Lay down what a daemon killed mid-delivery leaves behind: msg_0001 archived, not yet stamped delivered. */
function crashedAfterArchive(p: Project, stateCounter: 0 | 1, leftoverClaim: boolean) {
  mkdirSync(p.path('archive'), { recursive: true });
  mkdirSync(p.path('c1_to_c2'), { recursive: true });
  const record = {
    id: 'msg_0001',
    reply_to: null,
    content: 'the one message',
    sender: 'claude1',
    receiver: 'claude2',
    type: 'message',
    direction: 'c1_to_c2',
    source_file: 'm1.json',
    received_at: new Date().toISOString(),
    delivered_at: null,
  };
  writeFileSync(p.path('archive', 'msg_0001.json'), JSON.stringify(record));
  if (leftoverClaim) {
    mkdirSync(p.path('.claimed', 'c1_to_c2', 'msg_0001'), { recursive: true });
    writeFileSync(
      p.path('.claimed', 'c1_to_c2', 'msg_0001', 'm1.json'),
      JSON.stringify({ content: 'the one message' }),
    );
  }
  const state = stateCounter
    ? { current_turn: 'claude2', last_message_id: 'msg_0001', message_counter: 1, pending_reply_to: 'msg_0001' }
    : { current_turn: 'claude1', last_message_id: null, message_counter: 0, pending_reply_to: null };
  writeFileSync(p.path('state.json'), JSON.stringify(state));
}

describe('start-up recovery after a crash mid-delivery', () => {
  it('killed after claiming, before archiving: the file goes back to its inbox and is delivered normally', async () => {
    p = new Project();
    await p.recorder('claude1');
    const log = await p.recorder('claude2');
    mkdirSync(p.path('.claimed', 'c1_to_c2', 'msg_0001'), { recursive: true });
    writeFileSync(p.path('.claimed', 'c1_to_c2', 'msg_0001', 'taken.json'), JSON.stringify({ content: 'half taken' }));
    await p.startDaemon();
    await waitFor('delivered', () => p.archive()[0]?.delivered_at);
    expect(p.archive()[0]).toMatchObject({ id: 'msg_0001', content: 'half taken', source_file: 'taken.json' });
    expect(p.archive()[0]!.redelivered).toBeUndefined();
    expect(p.ls('.claimed', 'c1_to_c2')).toEqual([]);
    await waitFor('typed', () => readRecorder(log).pastes.length === 1);
  });

  it('killed after archiving, before state.json: the leftover claim goes, the message is typed once, unflagged', async () => {
    p = new Project();
    await p.recorder('claude1');
    const log = await p.recorder('claude2');
    crashedAfterArchive(p, 0, true);
    // doctor sees a delivery cut short: a warning, not a fault, and nothing for --repair to do.
    const check = JSON.parse((await p.cli(['doctor', '--json'])).stdout) as {
      ok: boolean;
      checks: { name: string; level: string }[];
    };
    expect(check.ok).toBe(true);
    expect(check.checks.find((c) => c.name === 'state.json')!.level).toBe('warn');
    expect(check.checks.find((c) => c.name === 'claims')!.level).toBe('warn');
    expect((await p.cli(['doctor', '--repair'])).stdout).toContain('nothing to repair');
    expect(p.state()).toMatchObject({ message_counter: 0 });
    await p.startDaemon();
    await waitFor('delivered', () => p.archive()[0]?.delivered_at);
    expect(p.ls('c1_to_c2')).toEqual([]);
    expect(p.ls('.claimed', 'c1_to_c2')).toEqual([]);
    expect(p.archive()).toHaveLength(1);
    expect(p.archive()[0]!.redelivered).toBeUndefined();
    // (The state brought up to the archive is the contract's: crash.contract.ts, killed after "archived".)
    await waitFor('typed', () => readRecorder(log).pastes.length === 1);
    expect(readRecorder(log).pastes[0]!.split('\n')[0]).toBe('[baton] msg_0001 from claude1');
    expect(p.events().some((e) => e.event === 'redelivered')).toBe(false);
  });

  it('killed after state.json, maybe mid-paste: typed again, flagged in the header, the archive and events', async () => {
    p = new Project();
    await p.recorder('claude1');
    const log = await p.recorder('claude2');
    crashedAfterArchive(p, 1, false);
    await p.startDaemon();
    await waitFor('delivered', () => p.archive()[0]?.delivered_at);
    expect(p.archive()[0]!.redelivered).toBe(true);
    await waitFor('typed', () => readRecorder(log).pastes.length === 1);
    expect(readRecorder(log).pastes[0]!.split('\n')[0]).toBe('[baton] msg_0001 from claude1 (redelivered)');
    await waitFor('delivered event', () => p.events().some((e) => e.event === 'delivered')); // logged after the archive stamp
    expect(
      p
        .events()
        .filter((e) => e.event === 'redelivered')
        .map((e) => e.id),
    ).toEqual(['msg_0001']);
  });

  it('a corrupt state.json stops the daemon with exit 1 naming the file and doctor --repair, which rebuilds it', async () => {
    p = new Project();
    await p.recorder('claude1');
    await p.recorder('claude2');
    crashedAfterArchive(p, 1, false);
    writeFileSync(p.path('state.json'), '{"current_turn": ');
    const r = await p.cli(['daemon']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(p.path('state.json'));
    expect(r.stderr).toContain('baton doctor --repair');
    expect(readFileSync(p.path('state.json'), 'utf8')).toBe('{"current_turn": '); // left for the person to inspect
    expect(existsSync(p.path('daemon.lock'))).toBe(false);

    const check = await p.cli(['doctor', '--json']);
    expect(check.exitCode).toBe(1);
    const report = JSON.parse(check.stdout) as {
      ok: boolean;
      checks: { name: string; level: string; detail: string }[];
    };
    expect(report.ok).toBe(false);
    expect(report.checks.find((c) => c.name === 'state.json')).toMatchObject({
      level: 'fail',
      detail: expect.stringContaining('corrupt'),
    });
    const repair = await p.cli(['doctor', '--repair']);
    expect(repair.exitCode, repair.stdout + repair.stderr).toBe(0);
    expect(p.state()).toMatchObject({
      current_turn: 'claude2',
      message_counter: 1,
      last_message_id: 'msg_0001',
      pending_reply_to: 'msg_0001',
    });
    expect((await p.cli(['doctor'])).exitCode).toBe(0);

    await p.startDaemon();
    // --repair never runs under a live daemon.
    const refused = await p.cli(['doctor', '--repair']);
    expect(refused.exitCode).toBe(3);
    expect(refused.stderr).toMatch(/pid \d+/);
    await waitFor('delivered', () => p.archive()[0]?.delivered_at);
    expect(p.state()).toMatchObject({ current_turn: 'claude2', message_counter: 1, last_message_id: 'msg_0001' });
  });

  it('a claim stranded while the daemon runs goes back to its inbox before its ID is used again: nothing lost', async () => {
    p = new Project();
    await p.recorder('claude1');
    await p.recorder('claude2');
    await p.startDaemon();
    mkdirSync(p.path('.claimed', 'c1_to_c2', 'msg_0001'), { recursive: true });
    writeFileSync(p.path('.claimed', 'c1_to_c2', 'msg_0001', 'stray.json'), JSON.stringify({ content: 'stranded' }));
    p.send('c1_to_c2', 'a.json', { content: 'first' });
    await waitFor('first delivered', () => p.archive()[0]?.delivered_at);
    expect(p.ls('c1_to_c2')).toContain('stray.json');
    p.send('c2_to_c1', 'b.json', { content: 'reply' });
    await waitFor('three delivered', () => p.archive()[2]?.delivered_at);
    expect(
      p
        .archive()
        .map((r) => r.content)
        .sort(),
    ).toEqual(['first', 'reply', 'stranded']);
    expect(p.ls('.claimed', 'c1_to_c2')).toEqual([]);
  });

  it('a missing state.json is rebuilt from the archive at start', async () => {
    p = new Project();
    await p.recorder('claude1');
    await p.recorder('claude2');
    crashedAfterArchive(p, 1, false);
    await execa('rm', [p.path('state.json')]);
    await p.startDaemon();
    await waitFor('delivered', () => p.archive()[0]?.delivered_at);
    expect(p.state()).toMatchObject({ current_turn: 'claude2', message_counter: 1, last_message_id: 'msg_0001' });
    expect(p.events().find((e) => e.event === 'recovered')).toBeTruthy();
  });

  it("a killed daemon's tmux control client, left attached, is ended by the next daemon", async () => {
    p = new Project();
    await p.recorder('claude1');
    await p.recorder('claude2');
    // As a kill -9 can leave one: baton's control client with its parent gone, still attached. Its stdin is a
    // fifo this test holds open, so tmux cannot end it on its own.
    const fifo = join(p.dir, 'orphan-stdin');
    await execa('mkfifo', [fifo]);
    const holder = openSync(fifo, 'r+');
    try {
      const line = '(tmux -u -S "$0" -C attach-session -f ignore-size,no-output <"$1" >/dev/null 2>&1 &)';
      await execa('sh', ['-c', line, p.socket, fifo]);
      const controlClients = async () =>
        (await p.tmux(['list-clients', '-F', '#{client_pid} #{client_control_mode}'])).stdout
          .split('\n')
          .filter((l) => l.endsWith(' 1'))
          .map((l) => Number(l.split(' ')[0]));
      const [orphan] = await waitFor('the orphan attached', async () => {
        const pids = await controlClients();
        return pids.length ? pids : null;
      });
      expect(procStat(orphan!)?.[1], 'its parent gone').toBe('1');
      await p.startDaemon();
      await waitFor('the orphan ended', () => !alive(orphan!));
      p.send('c1_to_c2', 'a.json', { content: 'after the sweep' });
      await waitFor('delivered', () => p.archive()[0]?.delivered_at);
      expect(await controlClients()).toHaveLength(1); // the daemon's own
    } finally {
      closeSync(holder);
    }
  });

  // Seeded, so a failure can be replayed: BATON_STORM_SEED=<seed> npx vitest run test/integration/recovery.test.ts
  const STORM_SEED = Number(process.env.BATON_STORM_SEED || 20261122);
  it(`kill -9 storm during a ping-pong (seed ${STORM_SEED}): 12+ kills over 100+ messages, nothing lost, nothing repeated silently`, async () => {
    const KILLS = 12;
    const MESSAGES = 100;
    const began = Date.now();
    p = new Project({ delivery: { enter_delay_ms: 0 } });
    scaleTime(p, 0.25); // each start takes over the killed daemon's lock once stale: 3 s, here 0.75 s
    const logs = {
      claude1: await p.recorder('claude1', { reply: true }),
      claude2: await p.recorder('claude2', { reply: true }),
    };
    // Cheap probes (a directory listing, one record): parsing the whole archive every few ms would eat
    // the CPU the daemon and the recorders need on a 2-core machine.
    const archived = () => p.ls('archive').filter((n) => /^msg_\d+\.json$/.test(n)).length;
    const record = (n: number) =>
      JSON.parse(readFileSync(p.path('archive', `msg_${String(n).padStart(4, '0')}.json`), 'utf8')) as {
        delivered_at: string | null;
      };
    // Wrapped in an object: the subprocess is a thenable, and an async function returning it bare would wait for it to exit.
    const start = async () => {
      const d = await p.startDaemon(); // takes over the dead daemon's stale lock
      if (d.proc.exitCode !== null)
        throw new Error(`the daemon did not start (seed ${STORM_SEED}): ${String((await d.proc).all)}`);
      return d;
    };
    let daemon = (await start()).proc;
    // A daemon killed with -9 cannot end what it started (its tmux control-mode client). Once in ~50 kills
    // such a client was seen to outlive it, attached for good and keeping the private server alive past
    // kill-server. Not part of the contract, so not asserted: counted, reported, and ended by pid.
    const childrenOf = (pid: number | undefined) =>
      pid
        ? readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)
        : [];
    const running = (pid: number) => {
      try {
        return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
      } catch {
        return false;
      }
    };
    const orphans: string[] = [];
    p.send('c1_to_c2', 'opening.json', { content: 'ping' });
    let seed = STORM_SEED;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    let kills = 0;
    for (; kills < KILLS; kills++) {
      // Every 2–11 messages. Often the moment its record appears (before the paste or the delivered_at
      // stamp: typed again, flagged), else 0–30 ms later (anywhere up to the stamp, or while a recorder
      // is busy posting its reply).
      const target = archived() + 2 + Math.floor(rand() * 10);
      const delay = rand() < 0.4 ? 0 : rand() * 30;
      await waitFor(`message ${target} (kill ${kills + 1}, seed ${STORM_SEED})`, () => archived() >= target, 60_000, 2);
      if (delay) await sleep(delay);
      const kids = childrenOf(daemon.pid);
      daemon.kill('SIGKILL');
      await daemon.catch(() => {});
      await waitFor("the killed daemon's children to exit", () => !kids.some(running), 3000).catch(() => {});
      for (const k of kids.filter(running)) {
        let what = '?';
        try {
          what = readFileSync(`/proc/${k}/cmdline`, 'utf8').split('\0').join(' ').trim().slice(0, 80);
        } catch {
          /* gone meanwhile */
        }
        orphans.push(`${k} ${what}`);
        try {
          process.kill(k, 'SIGKILL');
        } catch {
          /* gone meanwhile */
        }
      }
      daemon = (await start()).proc;
    }
    const final = Math.max(MESSAGES, archived() + 5);
    await waitFor(
      `${final} messages (seed ${STORM_SEED})`,
      () => archived() >= final && record(archived()).delivered_at,
      90_000,
      20,
    );
    daemon.kill('SIGTERM');
    const stopped = await daemon;
    expect(
      stopped.exitCode,
      `exit after SIGTERM (killed by ${String(stopped.signal)}: it did not stop within 5 s)`,
    ).toBe(0);

    const archive = p.archive();
    const n = archive.length;
    // archive IDs run 1..N, no gap or duplicate; the chain alternates and links; state agrees.
    expect(archive.map((r) => r.id)).toEqual(
      Array.from({ length: n }, (_, i) => `msg_${String(i + 1).padStart(4, '0')}`),
    );
    archive.forEach((r, i) => {
      expect(r.reply_to).toBe(i ? archive[i - 1]!.id : null);
      expect(r.sender).toBe(i % 2 ? 'claude2' : 'claude1');
    });
    const last = archive[n - 1]!;
    expect(last.delivered_at).toBeTruthy(); // SIGTERM finishes the delivery in progress
    expect(p.state()).toMatchObject({
      message_counter: n,
      last_message_id: last.id,
      pending_reply_to: last.id,
      current_turn: last.receiver,
    });
    // Nothing rejected, nothing left claimed (no fourth place at rest).
    expect(p.ls('rejected')).toEqual([]);
    expect([...p.ls('.claimed', 'c1_to_c2'), ...p.ls('.claimed', 'c2_to_c1')]).toEqual([]);

    // Every message file ever written is in exactly one place. The files are the opening plus one
    // "reply to <id>" per submitted paste a recorder read (a paste typed twice was answered twice); the
    // places are the archive and the inboxes (replies posted after the last delivery, or answers to a
    // redelivered message that wait their turn). The daemon is stopped, so the recorders' last posts
    // only add to the inboxes: wait for both sides to agree, then compare.
    const written = () =>
      [
        'ping',
        ...Object.values(logs).flatMap((log) =>
          readRecorder(log).pastes.flatMap((t) => {
            const m = /^\[baton\] (msg_\d+) from /.exec(t);
            return m ? [`reply to ${m[1]}`] : [];
          }),
        ),
      ].sort();
    // Message files only: a recorder's `baton post` may be writing its temp dot-file right now.
    const inboxes = () =>
      ['c1_to_c2', 'c2_to_c1'].flatMap((d) =>
        p
          .ls(d)
          .filter((f) => !f.startsWith('.'))
          .map((f) => ({
            d,
            f,
            content: (JSON.parse(readFileSync(p.path(d, f), 'utf8')) as { content: string }).content,
          })),
      );
    const found = () => [...archive.map((r) => r.content), ...inboxes().map((x) => x.content)].sort();
    await waitFor('every reply posted', () => JSON.stringify(found()) === JSON.stringify(written()), 60_000).catch(
      () => {},
    );
    expect(found()).toEqual(written());
    expect([...p.ls('c1_to_c2'), ...p.ls('c2_to_c1')]).toHaveLength(inboxes().length); // no temp file left behind
    // The same file never sits in an inbox and in the archive.
    const sources = new Set(archive.map((r) => `${String(r.direction)}/${String(r.source_file)}`));
    expect(sources.size).toBe(n);
    expect(inboxes().filter((x) => sources.has(`${x.d}/${x.f}`))).toEqual([]);

    // delivered_at is stamped once Enter is sent; the program reads the bytes later — much later when it
    // is busy running its own `baton post`. Give every pane time to read everything, then judge.
    const readAll = () =>
      archive.every((r) =>
        readRecorder(logs[r.receiver as keyof typeof logs]).typed.some((t) => t.startsWith(`[baton] ${r.id} `)),
      );
    await waitFor('every delivered message read by its pane', readAll, 60_000).catch(() => {});
    // Each pane got every ID meant for it at least once, twice only where flagged.
    for (const [agent, log] of Object.entries(logs)) {
      const read = readRecorder(log);
      // Every paste counts as typed, submitted or not (a kill between paste and Enter leaves one unsubmitted).
      const headers = read.typed.map((t) => t.split('\n')[0]!);
      for (const r of archive.filter((x) => x.receiver === agent)) {
        const got = headers.filter((h) => h.startsWith(`[baton] ${r.id} `));
        expect(
          got.length,
          `${r.id} typed into ${agent}; it read: ${JSON.stringify(headers)}; stray ${JSON.stringify(read.stray.slice(0, 300))}`,
        ).toBeGreaterThanOrEqual(1);
        if (got.length > 1) {
          expect(r.redelivered, `${r.id} typed ${got.length}× must be flagged`).toBe(true);
          expect(got.slice(1).every((h) => h.endsWith('(redelivered)'))).toBe(true);
        }
        expect(got.length).toBeLessThanOrEqual(2);
      }
      // Nothing but baton's messages reached the pane, and no message meant for the other agent.
      expect(
        headers.every((h) =>
          archive.some((r) => r.receiver === agent && h.startsWith(`[baton] ${r.id} from ${r.sender}`)),
        ),
      ).toBe(true);
    }
    const events = p.events();
    const redelivered = events.filter((e) => e.event === 'redelivered').length;
    expect(archive.filter((r) => r.redelivered).length).toBe(redelivered);
    console.log(
      `storm (seed ${STORM_SEED}): ${kills} kills, ${n} messages, ${redelivered} redelivered, ` +
        `${events.filter((e) => e.event === 'recovered').length} recoveries, ${inboxes().length} replies left in inboxes, ` +
        `${written().length} files written, 0 lost, 0 duplicated, ${Math.round((Date.now() - began) / 1000)} s` +
        (orphans.length
          ? `; WARNING: ${orphans.length} child process(es) outlived a killed daemon (pids ${orphans.join(', ')})`
          : ''),
    );
  }, 180_000);
});

/**
 * A daemon killed between a paste and its Enter (the `pasted` failpoint: SIGKILL right after the paste).
 * Its next start used to type the message again, flagged, behind the paste still sitting in the agent's
 * input — and the agent submitted both copies in one go. Now the next start looks at what is there.
 */
describe('a daemon killed between a paste and its Enter', () => {
  const FAKE_CLAUDE = join(ROOT, 'test', 'fixtures', 'fake-claude.mjs');
  const screenOf = async (name: string) => (await p.tmux(['capture-pane', '-p', '-t', `=${name}:`])).stdout;
  /** What the stand-in Claude Code's model got: one entry per submit. */
  const submits = (log: string) =>
    readFileSync(log, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { text: string }).text);
  /** Each copy of a message in a submit: a second copy pasted behind the first starts mid-line. */
  const headers = (text: string) => text.match(/\[baton\] msg_\d+ from \w+(?: \(redelivered\))?/g) ?? [];

  /** The daemon pastes msg_0001 and is killed before its Enter; then a daemon starts again. */
  async function killedAfterPaste(content: string): Promise<void> {
    scaleTime(p, 0.25); // the restart takes over the killed daemon's lock once stale: 3 s, here 0.75 s
    p.send('c1_to_c2', 'm.json', { content });
    const { proc } = await p.startDaemon({ BATON_FAILPOINT: 'pasted' });
    await waitFor('the daemon killed right after its paste', () => proc.exitCode !== null || proc.signalCode, 15_000);
    expect(proc.signalCode).toBe('SIGKILL');
    expect(p.archive()[0]!.delivered_at).toBeNull();
    await p.startDaemon();
    await waitFor('delivered after the restart', () => p.archive()[0]?.delivered_at, 20_000);
  }

  async function claudeReceiver(): Promise<string> {
    p = new Project({
      agents: { claude1: { kind: 'generic', command: 'x' }, claude2: { kind: 'claude', command: 'x' } },
      delivery: { enter_delay_ms: 100 },
    });
    await p.recorder('claude1');
    const log = join(p.dir, 'claude2.log');
    const cmd = `exec node ${JSON.stringify(FAKE_CLAUDE)} ${JSON.stringify(log)}`;
    expect((await p.tmux(['new-session', '-d', '-s', 'claude2', '-x', '200', '-y', '50', cmd])).exitCode).toBe(0);
    await waitFor("claude2's box", async () => (await screenOf('claude2')).includes('❯'));
    return log;
  }

  it('Claude Code (its box read), the text shown in the box: that paste is submitted, the model gets the message once', async () => {
    const log = await claudeReceiver();
    await killedAfterPaste('one short line');
    const got = submits(log);
    expect(got).toHaveLength(1);
    expect(headers(got[0]!)).toEqual(['[baton] msg_0001 from claude1']);
    expect(got[0]).toContain('one short line');
    expect(p.archive()[0]!.redelivered).toBeUndefined(); // it got one copy, unflagged
    const found = p.events().filter((e) => e.event === 'leftover_paste');
    expect(found.map((e) => [e.id, e.action, e.copy])).toEqual([['msg_0001', 'submitted', 'unflagged']]);
    expect(p.events().filter((e) => e.event === 'redelivered')).toEqual([]);
  }, 60_000);

  it('Claude Code, a long paste the box shows as "[Pasted text #1 +N lines]": submitted once, stamped redelivered (the marker cannot say which copy)', async () => {
    const log = await claudeReceiver();
    const long = Array.from({ length: 12 }, (_, i) => `line ${i + 1} of a long message`).join('\n');
    await killedAfterPasteShowingMarker(long);
    const got = submits(log);
    expect(got).toHaveLength(1);
    expect(headers(got[0]!)).toHaveLength(1);
    expect(got[0]).toContain('line 12 of a long message');
    expect(p.archive()[0]!.redelivered).toBe(true);
    expect(
      p
        .events()
        .filter((e) => e.event === 'leftover_paste')
        .map((e) => e.copy),
    ).toEqual(['unknown']);
  }, 60_000);

  it('Claude Code, its box holding more than that paste (a person typed after it): nothing typed behind it until the box is empty', async () => {
    const log = await claudeReceiver();
    scaleTime(p, 0.25); // the restart takes over the killed daemon's lock once stale: 3 s, here 0.75 s
    p.send('c1_to_c2', 'm.json', { content: 'one short line' });
    const { proc } = await p.startDaemon({ BATON_FAILPOINT: 'pasted' });
    await waitFor('the daemon killed right after its paste', () => proc.signalCode, 15_000);
    await p.tmux(['send-keys', '-t', '=claude2:', '-l', ' and a person typed on']);
    await waitFor('their text in the box', async () => (await screenOf('claude2')).includes('a person typed on'));
    await p.startDaemon();
    await waitFor('the wait reported', () =>
      p
        .events()
        .some((e) => e.event === 'delivery_failed' && String(e.error).includes('holds something other than msg_0001')),
    );
    await sleep(1500);
    expect(submits(log)).toEqual([]); // nothing submitted, and
    expect((await screenOf('claude2')).match(/\[baton\] msg_0001/g)).toHaveLength(1); // nothing pasted behind it
    await p.tmux(['send-keys', '-t', '=claude2:', 'C-u']); // the person clears the box
    await waitFor('delivered', () => p.archive()[0]?.delivered_at, 20_000);
    const got = submits(log);
    expect(got.map(headers)).toEqual([['[baton] msg_0001 from claude1 (redelivered)']]);
    expect(p.archive()[0]!.redelivered).toBe(true);
  }, 60_000);

  it('a generic agent (its box unseen): Enter alone first, so the two copies never go in one submit', async () => {
    p = new Project({ delivery: { enter_delay_ms: 100 } });
    await p.recorder('claude1');
    const log = await p.recorder('claude2');
    await killedAfterPaste('are you there?');
    await waitFor('the flagged copy read, and its Enter', () =>
      /\(redelivered\)[\s\S]*\r$/.test(readRecorder(log).raw.toString()),
    );
    const raw = readRecorder(log).raw.toString('utf8');
    // Each submit (the text up to each Enter) holds at most one copy of the message.
    const perSubmit = raw.split('\r').map((s) => (s.match(/\[baton\] msg_0001 /g) ?? []).length);
    expect(
      perSubmit.every((n) => n <= 1),
      JSON.stringify(perSubmit),
    ).toBe(true);
    expect(readRecorder(log).pastes.map((t) => t.split('\n')[0])).toEqual([
      '[baton] msg_0001 from claude1',
      '[baton] msg_0001 from claude1 (redelivered)',
    ]);
    expect(p.archive()[0]!.redelivered).toBe(true);
    expect(
      p
        .events()
        .filter((e) => e.event === 'leftover_paste')
        .map((e) => e.action),
    ).toEqual(['entered']);
  }, 60_000);

  it("a person's message (baton send) to a generic agent: answered after the kill, Enter alone first, each submit one copy", async () => {
    p = new Project({ delivery: { enter_delay_ms: 100 } });
    scaleTime(p, 0.25); // the command takes over the killed daemon's lock once stale: 3 s, here 0.75 s
    await p.recorder('claude1');
    const log = await p.recorder('claude2');
    const { proc } = await p.startDaemon({ BATON_FAILPOINT: 'pasted' });
    const sending = p.cli(['send', '--to', 'claude2', 'a word from a person']);
    await waitFor('the daemon killed right after its paste', () => proc.signalCode, 15_000);
    // No daemon now: the command answers its own request once the lease is free, as the daemon would.
    const sent = await sending;
    expect(sent.exitCode, sent.stdout + sent.stderr).toBe(0);
    await waitFor('the flagged copy read, and its Enter', () =>
      /\(redelivered\)[\s\S]*\r$/.test(readRecorder(log).raw.toString()),
    );
    const raw = readRecorder(log).raw.toString('utf8');
    const perSubmit = raw.split('\r').map((s) => (s.match(/\[baton\] user_0001 /g) ?? []).length);
    expect(
      perSubmit.every((n) => n <= 1),
      JSON.stringify(perSubmit),
    ).toBe(true);
    expect(readRecorder(log).pastes.map((t) => t.split('\n')[0])).toEqual([
      '[baton] user_0001 from user',
      '[baton] user_0001 from user (redelivered)',
    ]);
  }, 60_000);

  /** As killedAfterPaste, checking that the box shows the stand-in's marker for a big paste before the restart. */
  async function killedAfterPasteShowingMarker(content: string): Promise<void> {
    scaleTime(p, 0.25); // the restart takes over the killed daemon's lock once stale: 3 s, here 0.75 s
    p.send('c1_to_c2', 'm.json', { content });
    const { proc } = await p.startDaemon({ BATON_FAILPOINT: 'pasted' });
    await waitFor('the daemon killed right after its paste', () => proc.exitCode !== null || proc.signalCode, 15_000);
    await waitFor('the marker in the box', async () =>
      /❯.\[Pasted text #1 \+\d+ lines\]/.test(await screenOf('claude2')),
    );
    await p.startDaemon();
    await waitFor('delivered after the restart', () => p.archive()[0]?.delivered_at, 20_000);
  }
});
