import { execa } from 'execa';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, Project, readRecorder, waitFor } from '../helpers/harness.js';

let p: Project;
afterEach(async () => {
  await p?.stop();
});

/** Lay down what a daemon killed mid-delivery leaves behind: msg_0001 archived, not yet stamped delivered. */
function crashedAfterArchive(p: Project, stateCounter: 0 | 1, leftoverClaim: boolean) {
  mkdirSync(p.path('archive'), { recursive: true });
  mkdirSync(p.path('c1_to_c2'), { recursive: true });
  const record = {
    id: 'msg_0001', reply_to: null, content: 'the one message', sender: 'claude1', receiver: 'claude2', type: 'message',
    direction: 'c1_to_c2', source_file: 'm1.json', received_at: new Date().toISOString(), delivered_at: null,
  };
  writeFileSync(p.path('archive', 'msg_0001.json'), JSON.stringify(record));
  if (leftoverClaim) {
    mkdirSync(p.path('.claimed', 'c1_to_c2', 'msg_0001'), { recursive: true });
    writeFileSync(p.path('.claimed', 'c1_to_c2', 'msg_0001', 'm1.json'), JSON.stringify({ content: 'the one message' }));
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
    const check = JSON.parse((await p.cli(['doctor', '--json'])).stdout) as { ok: boolean; checks: { name: string; level: string }[] };
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
    expect(p.state()).toMatchObject({ current_turn: 'claude2', message_counter: 1, last_message_id: 'msg_0001', pending_reply_to: 'msg_0001' });
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
    expect(p.events().filter((e) => e.event === 'redelivered').map((e) => e.id)).toEqual(['msg_0001']);
    expect(p.state()).toMatchObject({ current_turn: 'claude2', message_counter: 1 });
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
    const report = JSON.parse(check.stdout) as { ok: boolean; checks: { name: string; level: string; detail: string }[] };
    expect(report.ok).toBe(false);
    expect(report.checks.find((c) => c.name === 'state.json')).toMatchObject({ level: 'fail', detail: expect.stringContaining('corrupt') });
    const repair = await p.cli(['doctor', '--repair']);
    expect(repair.exitCode, repair.stdout + repair.stderr).toBe(0);
    expect(p.state()).toMatchObject({ current_turn: 'claude2', message_counter: 1, last_message_id: 'msg_0001', pending_reply_to: 'msg_0001' });
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
    expect(p.archive().map((r) => r.content).sort()).toEqual(['first', 'reply', 'stranded']);
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

  it('kill -9 during a ping-pong: restarted daemons lose nothing and never repeat a message silently', async () => {
    p = new Project({ delivery: { enter_delay_ms: 0 } });
    const logs = { claude1: await p.recorder('claude1', { reply: true }), claude2: await p.recorder('claude2', { reply: true }) };
    let daemon = (await p.startDaemon()).proc;
    p.send('c1_to_c2', 'opening.json', { content: 'ping' });
    // Seeded pseudo-random kill moments, so a failure can be replayed.
    let seed = 20261122;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let kill = 0; kill < 5; kill++) {
      const target = p.archive().length + 3 + Math.floor(rand() * 4);
      await waitFor(`message ${target}`, () => p.archive().length >= target, 30_000, 2);
      await new Promise((r) => setTimeout(r, rand() * 15));
      daemon.kill('SIGKILL');
      await daemon.catch(() => {});
      daemon = (await p.startDaemon()).proc; // takes over the stale lock
    }
    const final = p.archive().length + 5;
    await waitFor('five more', () => p.archive().length >= final && p.archive().at(-1)?.delivered_at, 30_000);
    daemon.kill('SIGTERM');
    await daemon;

    const archive = p.archive();
    const n = archive.length;
    // archive IDs run 1..N, no gap or duplicate; the chain alternates and links; state agrees.
    expect(archive.map((r) => r.id)).toEqual(Array.from({ length: n }, (_, i) => `msg_${String(i + 1).padStart(4, '0')}`));
    archive.forEach((r, i) => {
      expect(r.reply_to).toBe(i ? archive[i - 1]!.id : null);
      expect(r.sender).toBe(i % 2 ? 'claude2' : 'claude1');
    });
    const last = archive[n - 1]!;
    // delivered_at is stamped once Enter is sent; the program reads the bytes later — much later when it
    // is busy running its own `baton post`. Give every pane time to read everything, then judge.
    const readAll = () =>
      archive.every((r) => !r.delivered_at || readRecorder(logs[r.receiver as keyof typeof logs]).typed.some((t) => t.startsWith(`[baton] ${r.id} `)));
    await waitFor('every delivered message read by its pane', readAll, 15_000).catch(() => {});
    expect(p.state()).toMatchObject({ message_counter: n, last_message_id: last.id, pending_reply_to: last.id, current_turn: last.receiver });
    // Every message is in exactly one place: nothing rejected, nothing left claimed (no fourth place at rest).
    expect(p.ls('rejected')).toEqual([]);
    expect([...p.ls('.claimed', 'c1_to_c2'), ...p.ls('.claimed', 'c2_to_c1')]).toEqual([]);
    // Each pane got every ID meant for it at least once, twice only where flagged.
    for (const [agent, log] of Object.entries(logs)) {
      const read = readRecorder(log);
      // Every paste counts as typed, submitted or not (a kill between paste and Enter leaves one unsubmitted).
      const headers = read.typed.map((t) => t.split('\n')[0]!);
      for (const r of archive.filter((x) => x.receiver === agent && x.delivered_at)) {
        const got = headers.filter((h) => h.startsWith(`[baton] ${r.id} `));
        expect(got.length, `${r.id} typed into ${agent}; it read: ${JSON.stringify(headers)}; stray ${JSON.stringify(read.stray.slice(0, 300))}`).toBeGreaterThanOrEqual(1);
        if (got.length > 1) {
          expect(r.redelivered, `${r.id} typed ${got.length}× must be flagged`).toBe(true);
          expect(got.slice(1).every((h) => h.endsWith('(redelivered)'))).toBe(true);
        }
        expect(got.length).toBeLessThanOrEqual(2);
      }
    }
  });
});
