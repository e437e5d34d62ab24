import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { render } from '../../src/core/compose.js';
import { Project, readRecorder, scaleTime, waitFor } from '../helpers/harness.js';

let p: Project;
afterEach(async () => {
  await p?.stop();
});

async function twoRecorders(config: Record<string, unknown> = {}) {
  p = new Project(config);
  const logs = { claude1: await p.recorder('claude1'), claude2: await p.recorder('claude2') };
  await p.startDaemon();
  return logs;
}

describe('daemon with two recorder agents on a private tmux server', () => {
  it('delivers 20 alternating messages with the right IDs, reply_to chain, panes, state and archive', async () => {
    const logs = await twoRecorders();
    for (let i = 1; i <= 20; i++) {
      const from = i % 2 ? 'claude1' : 'claude2';
      p.send(i % 2 ? 'c1_to_c2' : 'c2_to_c1', `m${String(i).padStart(2, '0')}.json`, {
        sender: from,
        content: `message number ${i} from ${from}`,
      });
      await waitFor(`msg ${i} delivered`, () => p.archive()[i - 1]?.delivered_at);
    }
    const archive = p.archive();
    expect(archive.map((r) => r.id)).toEqual(
      Array.from({ length: 20 }, (_, i) => `msg_${String(i + 1).padStart(4, '0')}`),
    );
    archive.forEach((r, i) => {
      expect(r.reply_to).toBe(i === 0 ? null : archive[i - 1]!.id);
      expect(r.sender).toBe(i % 2 ? 'claude2' : 'claude1');
      expect(r.receiver).toBe(i % 2 ? 'claude1' : 'claude2');
      expect(r.content).toBe(`message number ${i + 1} from ${r.sender}`);
      expect(typeof r.received_at).toBe('string');
    });
    expect(p.state()).toMatchObject({
      current_turn: 'claude1',
      message_counter: 20,
      last_message_id: 'msg_0020',
      pending_reply_to: 'msg_0020',
    });
    expect(p.ls('c1_to_c2')).toEqual([]);
    expect(p.ls('c2_to_c1')).toEqual([]);

    // Each pane got exactly its messages, in order, as one bracketed paste + Enter each, nothing else.
    await waitFor('last paste read', () => readRecorder(logs.claude1).pastes.length === 10);
    for (const [agent, log] of Object.entries(logs)) {
      const { pastes, stray } = readRecorder(log);
      expect(stray).toBe('');
      const mine = archive.filter((r) => r.receiver === agent);
      expect(pastes).toEqual(
        mine.map((r) =>
          render({
            id: r.id,
            from: r.sender as string,
            to: agent,
            reply_to: r.reply_to,
            type: 'message',
            content: r.content,
          }),
        ),
      );
    }
    // Events are appended after the archive is stamped: wait for the last one.
    await waitFor('20 delivered events', () => p.events().filter((e) => e.event === 'delivered').length === 20);
    const delivered = p.events().filter((e) => e.event === 'delivered');
    expect(delivered.map((e) => e.id)).toEqual(archive.map((r) => r.id));
    expect(delivered.every((e) => typeof e.latency_ms === 'number')).toBe(true);
  });

  it('holds an out-of-turn file untouched, then delivers it when its turn comes', async () => {
    const logs = await twoRecorders();
    const early = p.send('c2_to_c1', 'early.json', { content: 'I spoke out of turn' });
    const before = readFileSync(early);
    await waitFor('held event', () => p.events().find((e) => e.event === 'held' && e.file === 'early.json'));
    await sleep(300);
    expect(readFileSync(early)).toEqual(before);
    expect(p.archive()).toEqual([]);
    expect(p.events().filter((e) => e.event === 'held')).toHaveLength(1); // once per file

    p.send('c1_to_c2', 'first.json', { content: 'opening' });
    await waitFor('both delivered', () => p.archive()[1]?.delivered_at);
    expect(p.archive().map((r) => [r.id, r.sender, r.content, r.reply_to])).toEqual([
      ['msg_0001', 'claude1', 'opening', null],
      ['msg_0002', 'claude2', 'I spoke out of turn', 'msg_0001'],
    ]);
    expect(existsSync(early)).toBe(false);
    await waitFor('claude1 got msg_0002', () =>
      readRecorder(logs.claude1).pastes[0]?.includes('msg_0002 from claude2'),
    );
  });

  it("only the first of the turn holder's files goes per turn; the rest wait their turns in name order", async () => {
    await twoRecorders();
    p.send('c1_to_c2', 'a1.json', { content: 'a1' });
    p.send('c1_to_c2', 'a2.json', { content: 'a2' });
    await waitFor('a1', () => p.archive()[0]?.delivered_at);
    await sleep(300);
    expect(p.archive()).toHaveLength(1);
    expect(p.ls('c1_to_c2')).toEqual(['a2.json']);
    p.send('c2_to_c1', 'b1.json', { content: 'b1' });
    await waitFor('a2', () => p.archive()[2]?.delivered_at);
    expect(p.archive().map((r) => r.content)).toEqual(['a1', 'b1', 'a2']);
  });

  it('rejects bad files into rejected/ with a reason, and keeps delivering', async () => {
    p = new Project({ inbox: { max_bytes: 2000, settle_ms: 300 } });
    await p.recorder('claude1');
    await p.recorder('claude2');
    await p.startDaemon();
    const dir = p.path('c1_to_c2');
    p.send('c1_to_c2', 'broken.json', '{"content": "no end');
    p.send('c1_to_c2', 'array.json', '[1,2,3]');
    p.send('c1_to_c2', 'empty-content.json', { content: '' });
    p.send('c1_to_c2', 'wrong-sender.json', { sender: 'claude2', content: 'x' });
    p.send('c1_to_c2', 'huge.json', { content: 'x'.repeat(5000) });
    writeFileSync(join(p.dir, 'target.json'), JSON.stringify({ content: 'via a link' }));
    symlinkSync(join(p.dir, 'target.json'), join(dir, 'link.json'));
    mkdirSync(join(dir, 'folder.json'));
    execFileSync('mkfifo', [join(dir, 'pipe.json')]);
    const bad = [
      'array.json',
      'broken.json',
      'empty-content.json',
      'folder.json',
      'huge.json',
      'link.json',
      'pipe.json',
      'wrong-sender.json',
    ];
    await waitFor('all rejected', () => bad.every((n) => existsSync(p.path('rejected', `${n}.error.json`))), 10_000);
    const reason = (n: string) =>
      (JSON.parse(readFileSync(p.path('rejected', `${n}.error.json`), 'utf8')) as { reason: string }).reason;
    expect(reason('broken.json')).toMatch(/invalid JSON/);
    expect(reason('array.json')).toMatch(/JSON object/);
    expect(reason('empty-content.json')).toMatch(/^content: must not be empty/);
    expect(reason('wrong-sender.json')).toMatch(/^sender: /);
    expect(reason('huge.json')).toMatch(/over inbox\.max_bytes/);
    expect(reason('link.json')).toMatch(/symbolic link/);
    expect(reason('folder.json')).toMatch(/directory/);
    expect(reason('pipe.json')).toMatch(/FIFO/);
    expect(readFileSync(join(p.dir, 'target.json'), 'utf8')).toContain('via a link'); // the link's target untouched
    expect(p.ls('c1_to_c2')).toEqual([]);
    // The note is written first, the event after it.
    await waitFor(
      'eight rejected events',
      () => p.events().filter((e) => e.event === 'rejected').length === bad.length,
    );
    expect(
      p
        .events()
        .filter((e) => e.event === 'rejected')
        .map((e) => e.file)
        .sort(),
    ).toEqual(bad);

    // Same name again: kept side by side, never overwritten.
    p.send('c1_to_c2', 'broken.json', 'still broken');
    await waitFor('second broken.json', () => existsSync(p.path('rejected', 'broken.1.json.error.json')));
    expect(readFileSync(p.path('rejected', 'broken.json'), 'utf8')).toBe('{"content": "no end');

    p.send('c1_to_c2', 'good.json', { content: 'still alive' });
    await waitFor('delivered after the junk', () => p.archive()[0]?.delivered_at);
    expect(p.archive()[0]!.content).toBe('still alive');
  });

  it("a rejected message's sender is told why in its pane — one notice for what piled up, no ID, no turn", async () => {
    p = new Project({ inbox: { max_bytes: 2000, settle_ms: 300 }, delivery: { enter_delay_ms: 20 } });
    const t = scaleTime(p, 0.25);
    const log1 = await p.recorder('claude1');
    const log2 = await p.recorder('claude2');
    // Two bad files before the daemon starts: rejected in one look, told in one notice.
    p.send('c1_to_c2', 'empty.json', { content: '' });
    p.send('c1_to_c2', 'huge.json', { content: 'x'.repeat(5000) });
    await p.startDaemon();
    const notices = (log: string) => readRecorder(log).pastes.filter((t) => t.includes('not delivered'));
    await waitFor('claude1 told', () => notices(log1).length >= 1);
    const [told] = notices(log1);
    expect(told).toContain('[baton] 2 of your messages were not delivered:');
    expect(told).toContain('[baton] - your message empty.json to claude2: content: must not be empty');
    expect(told).toMatch(/\[baton\] - your message huge\.json to claude2: \d+ bytes is over inbox\.max_bytes \(2000\)/);
    expect(told).toContain('[baton] it is still your turn; write a new message.');
    expect(p.archive()).toEqual([]); // a notice takes no ID …
    expect(p.state()).toMatchObject({ current_turn: 'claude1', message_counter: 0 }); // … and no turn
    // One more later: a notice of its own (ten seconds after the first at the soonest, here scaled), naming it alone;
    // the first is not repeated.
    p.send('c1_to_c2', 'array.json', '[1, 2, 3]');
    await waitFor('claude1 told again', () => notices(log1).length >= 2, 30_000);
    expect(notices(log1)[1]).toMatch(
      /^\[baton\] your message array\.json to claude2 was not delivered: the message must be a JSON object/,
    );
    // A folder the policy never delivers, from an agent whose turn it is not: told, and told it is not its turn.
    p.send('c2_to_c1', 'bad-sender.json', { sender: 'claude1', content: 'x' });
    await waitFor('claude2 told', () => notices(log2).length >= 1);
    expect(notices(log2)[0]).toContain('your message bad-sender.json to claude1 was not delivered: sender: ');
    expect(notices(log2)[0]).toContain('write it again, corrected, if it still matters');
    await sleep(3 * t.rejectionGatherMs); // nothing more: a notice would have been gathered by now
    expect([notices(log1).length, notices(log2).length]).toEqual([2, 1]);
    expect(p.archive()).toEqual([]);
    // Still delivering.
    p.send('c1_to_c2', 'good.json', { content: 'a good one' });
    await waitFor('delivered', () => p.archive()[0]?.delivered_at);
  });

  it('odd file names are delivered; over-long and non-UTF-8 names and too-deep data are rejected with a note', async () => {
    await twoRecorders();
    const odd = ['with space.json', 'q"uo\'te.json', 'new\nline.json', 'ねこ🐈.json', `${'x'.repeat(240)}.json`];
    for (const [i, name] of odd.entries()) p.send(i % 2 ? 'c2_to_c1' : 'c1_to_c2', name, { content: `odd ${i}` });
    await waitFor('five delivered', () => p.archive()[4]?.delivered_at);
    expect(
      p
        .archive()
        .map((r) => r.source_file)
        .sort(),
    ).toEqual([...odd].sort());

    const dir = p.path('c1_to_c2');
    const rawName = Buffer.concat([Buffer.from(`${dir}/bad`), Buffer.from([0xff, 0xfe]), Buffer.from('.json')]);
    writeFileSync(rawName, JSON.stringify({ content: 'valid content, invalid name' }));
    const deep = `{"content":"x","data":{"a":${'['.repeat(20000)}${']'.repeat(20000)}}}`;
    p.send('c1_to_c2', 'deep.json', deep);
    p.send('c1_to_c2', `${'y'.repeat(250)}.json`, '{"not": "a message"}');
    await waitFor('three notes', () => p.ls('rejected').filter((n) => n.endsWith('.error.json')).length === 3, 10_000);
    const notes = p
      .ls('rejected')
      .filter((n) => n.endsWith('.error.json'))
      .map((n) => JSON.parse(readFileSync(p.path('rejected', n), 'utf8')));
    expect(notes.map((n) => n.reason).sort()).toEqual([
      'content: required',
      'data is nested too deeply to archive',
      'the file name is not valid UTF-8',
    ]);
    expect(notes.find((n) => n.file_name_base64)?.file_name_base64).toBe(
      Buffer.from([0x62, 0x61, 0x64, 0xff, 0xfe, 0x2e, 0x6a, 0x73, 0x6f, 0x6e]).toString('base64'),
    );
    expect(p.ls('c1_to_c2')).toEqual([]);
    expect(p.ls('rejected')).toHaveLength(6);
  });

  it('a slow writer that pauses mid-file is delivered, not rejected', async () => {
    await twoRecorders();
    const file = p.path('c1_to_c2', 'slow.json');
    const body = JSON.stringify({ content: 'written in two halves' });
    writeFileSync(file, body.slice(0, 10));
    await sleep(200); // under settle_ms (300)
    writeFileSync(file, body);
    await waitFor('delivered', () => p.archive()[0]?.delivered_at);
    expect(p.ls('rejected')).toEqual([]);
  });

  it('takes files written while it was down, in name order, and skips dot-files and temp files', async () => {
    p = new Project();
    await p.recorder('claude1');
    await p.recorder('claude2');
    p.send('c1_to_c2', 'b.json', { content: 'second from claude1' });
    p.send('c1_to_c2', 'a.json', { content: 'first from claude1' });
    p.send('c2_to_c1', 'z.json', { content: 'from claude2' });
    writeFileSync(p.path('c1_to_c2', '.hidden.json'), '{"content":"no"}');
    writeFileSync(p.path('c1_to_c2', 'draft.json.tmp'), 'garbage');
    await p.startDaemon();
    await waitFor('three delivered', () => p.archive()[2]?.delivered_at);
    expect(p.archive().map((r) => r.content)).toEqual(['first from claude1', 'from claude2', 'second from claude1']);
    expect(p.ls('c1_to_c2')).toEqual(['.hidden.json', 'draft.json.tmp']);
    expect(p.ls('rejected')).toEqual([]);
  });

  it('hostile content arrives as text: byte-for-byte minus control bytes, nothing pressed as a key', async () => {
    const logs = await twoRecorders();
    const nasty = [
      'Enter C-c C-d Escape ; kill-server ; "double" \'single\' $(rm -rf ~) `id` $HOME \\n',
      '-R starts with a dash',
      'emoji 🎉🐈‍⬛ and 日本語のテキスト、カタカナ',
      'tab\there and CRLF\r\nline and lone CR\rline',
      'ctrl: \x03\x04\x1a bell \x07 esc \x1b[2J\x1b]0;title\x07 fake end \x1b[201~\r then keys \u009b1m',
      `twenty KB: ${'abcdefghij0123456789'.repeat(1024)}`,
    ].join('\n');
    p.send('c1_to_c2', 'nasty.json', { content: nasty });
    await waitFor('delivered', () => p.archive()[0]?.delivered_at);
    await waitFor('pane read it', () => readRecorder(logs.claude2).pastes.length === 1, 10_000);
    const { raw, pastes, stray } = readRecorder(logs.claude2);
    expect(stray).toBe('');
    const expected = render({
      id: 'msg_0001',
      from: 'claude1',
      to: 'claude2',
      reply_to: null,
      type: 'message',
      content: nasty,
    });
    expect(pastes[0]).toBe(expected);
    expect(pastes[0]).toContain('abcdefghij0123456789'.repeat(1024));
    expect(pastes[0]).toContain('日本語のテキスト');
    expect(pastes[0]).toContain('$(rm -rf ~) `id`');
    // Exactly one paste start, one paste end and one Enter reached the program; no other control byte.
    const s = raw.toString('latin1');
    expect(s.split('\x1b[200~')).toHaveLength(2);
    expect(s.split('\x1b[201~')).toHaveLength(2);
    expect(s.endsWith('\x1b[201~\r')).toBe(true);
    const inner = s.slice(s.indexOf('\x1b[200~') + 6, s.indexOf('\x1b[201~'));
    expect(inner).not.toMatch(/[\u0000-\u0008\u000B-\u000C\u000E-\u001F\u007F]/);
    // The archive keeps the content exactly as the agent wrote it.
    expect(p.archive()[0]!.content).toBe(nasty);
  });

  it('keeps a message queued while the receiver has no pane, and delivers once it is back', async () => {
    p = new Project();
    await p.recorder('claude1');
    await p.startDaemon();
    p.send('c1_to_c2', 'wait.json', { content: 'are you there?' });
    await waitFor('pane_unavailable', () =>
      p.events().find((e) => e.event === 'pane_unavailable' && e.agent === 'claude2'),
    );
    await sleep(700);
    expect(p.archive()).toEqual([]);
    expect(p.ls('c1_to_c2')).toEqual(['wait.json']);
    expect(p.events().filter((e) => e.event === 'pane_unavailable')).toHaveLength(1); // once per outage
    const status = JSON.parse((await p.cli(['status', '--json'])).stdout);
    expect(status.agents.claude2.alive).toBe(false);
    expect(status.held).toEqual({ c1_to_c2: 1, c2_to_c1: 0 });
    const log = await p.recorderWhenReady('claude2'); // not typed into before the program reads its terminal
    await waitFor('delivered after the pane came back', () => p.archive()[0]?.delivered_at, 15_000);
    await waitFor('pane read it', () => readRecorder(log).pastes[0]?.includes('are you there?'));
  });

  it('never types into a bare shell in place of a known agent; types into the pinned pane, not a split beside it', async () => {
    // A known agent CLI whose screen baton does not read (claude's, codex's and gemini's would be read, and
    // a recorder is none of them).
    p = new Project({
      agents: { claude1: { kind: 'aider', command: 'x' }, claude2: { kind: 'aider', command: 'x' } },
    });
    const log1 = await p.recorder('claude1');
    // claude2's agent has "exited" to an interactive shell a person started.
    const marker = join(p.dir, 'ran-as-command');
    await p.tmux(['new-session', '-d', '-s', 'claude2', '-x', '120', '-y', '40', 'bash --norc -i']);
    await p.startDaemon();
    p.send('c1_to_c2', 'm.json', { content: `touch ${marker}` });
    await waitFor('pane_unavailable', () =>
      p.events().find((e) => e.event === 'pane_unavailable' && String(e.reason).includes('bare shell')),
    );
    await sleep(500);
    expect(existsSync(marker)).toBe(false);
    expect(p.archive()).toEqual([]);
    expect(p.ls('c1_to_c2')).toEqual(['m.json']);

    // The agent comes back in that pane (the pane baton pins): delivered there.
    const log2 = join(p.dir, 'claude2.log');
    // Held in copy mode (baton waits) until the recorder reads its terminal: nothing is typed before it can.
    await p.tmux([
      'respawn-pane',
      '-k',
      '-t',
      '=claude2:',
      `exec node ${JSON.stringify(join(import.meta.dirname, '..', 'fixtures', 'recorder.mjs'))} ${JSON.stringify(log2)}`,
      ';',
      'copy-mode',
      '-t',
      '=claude2:',
    ]);
    await waitFor('recorder 2 ready', async () =>
      (await p.tmux(['capture-pane', '-p', '-t', '=claude2:'])).stdout.includes('recorder ready'),
    );
    await p.tmux([
      'set-option',
      '-F',
      '-t',
      '=claude2:',
      '@baton_pane',
      '#{pane_id}',
      ';',
      'send-keys',
      '-X',
      '-t',
      '=claude2:',
      'cancel',
    ]);
    await waitFor('delivered', () => p.archive()[0]?.delivered_at, 15_000);
    await waitFor('typed', () => existsSync(log2) && readRecorder(log2).pastes.length === 1);
    expect(existsSync(marker)).toBe(false);

    // A person splits the window: the new (active) pane is a shell; messages still go to the agent's pane.
    await p.tmux(['split-window', '-t', '=claude2:', 'bash --norc -i']);
    p.send('c2_to_c1', 'r.json', { content: 'reply' });
    await waitFor('reply typed', () => readRecorder(log1).pastes.length === 1);
    p.send('c1_to_c2', 'm2.json', { content: `touch ${marker}` });
    await waitFor('second typed into the pinned pane', () => readRecorder(log2).pastes.length === 2, 15_000);
    await sleep(300);
    expect(existsSync(marker)).toBe(false);
  });

  it('an agent program wrapped by a shell (redirections, a trailing command) still receives messages', async () => {
    p = new Project({ agents: { claude1: { kind: 'aider', command: 'x' }, claude2: { kind: 'aider', command: 'x' } } });
    await p.recorder('claude1');
    const log = join(p.dir, 'wrapped.log');
    const rec = join(import.meta.dirname, '..', 'fixtures', 'recorder.mjs');
    await p.tmux([
      'new-session',
      '-d',
      '-s',
      'claude2',
      `node ${JSON.stringify(rec)} ${JSON.stringify(log)} 2>/dev/null; echo agent exited`,
    ]);
    await waitFor('wrapped recorder ready', async () =>
      (await p.tmux(['capture-pane', '-p', '-t', '=claude2:'])).stdout.includes('recorder ready'),
    );
    expect((await p.tmux(['display-message', '-p', '-t', '=claude2:', '#{pane_current_command}'])).stdout).toMatch(
      /sh$/,
    );
    await p.startDaemon();
    p.send('c1_to_c2', 'm.json', { content: 'through the wrapper' });
    await waitFor('typed', () => existsSync(log) && readRecorder(log).pastes.length === 1, 10_000);
    expect(p.events().some((e) => e.event === 'pane_unavailable')).toBe(false);
  });

  it('a second daemon on the same folder exits 3 naming the holder', async () => {
    await twoRecorders();
    const holder = JSON.parse(readFileSync(p.path('daemon.pid'), 'utf8')).pid;
    const second = await p.cli(['daemon']);
    expect(second.exitCode).toBe(3);
    expect(second.stderr + second.stdout).toContain(`pid ${holder}`);
    const status = JSON.parse((await p.cli(['status', '--json'])).stdout);
    expect(status.daemon).toEqual({ running: true, pid: holder });
  });

  it('stops cleanly on SIGTERM: exit 0, a stopped event, the lock released', async () => {
    await twoRecorders();
    const second = await p.startDaemon();
    expect((await second.proc).exitCode).toBe(3); // a second start while running refuses
    const first = (p as unknown as { daemons: import('execa').ResultPromise[] }).daemons[0]!;
    first.kill('SIGTERM');
    const r = await first;
    expect(r.exitCode).toBe(0);
    expect(p.events().at(-1)).toMatchObject({ event: 'stopped', reason: 'SIGTERM' });
    expect(existsSync(p.path('daemon.lock'))).toBe(false);
    expect(JSON.parse((await p.cli(['status', '--json'])).stdout).daemon).toEqual({ running: false, pid: null });
    // and a new daemon can take over at once
    await p.startDaemon();
    p.send('c1_to_c2', 'after.json', { content: 'after restart' });
    await waitFor('delivered by the new daemon', () => p.archive()[0]?.delivered_at);
  });
});
