/**
 * Conversation control (docs/protocol.md §2, §4, §8, §9) with recorder agents on a private tmux server: N agents
 * under each policy, termination, reminders, a person's messages, moderated mode, log and status.
 */
import { existsSync, linkSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, Project, readRecorder, waitFor } from '../helpers/harness.js';

let p: Project;
afterEach(async () => {
  await p?.stop();
});

type Logs = Record<string, string>;

async function start(agents: string[], config: Record<string, unknown>, daemon = true): Promise<Logs> {
  p = new Project({
    agents: Object.fromEntries(agents.map((a) => [a, { kind: 'generic', command: 'x' }])),
    directions: undefined, // each policy's default folders
    delivery: { enter_delay_ms: 0 },
    ...config,
  });
  const logs: Logs = {};
  for (const a of agents) logs[a] = await p.recorder(a);
  if (daemon) await p.startDaemon();
  return logs;
}

/** What a pane read: each paste's first line. */
const heads = (log: string) => readRecorder(log).pastes.map((t) => t.split('\n')[0]!);
const json = (s: string) => JSON.parse(s) as Record<string, unknown>;
const status = async () => json((await p.cli(['status', '--json'])).stdout);

describe('N agents and the three policies', () => {
  it('round_robin with three agents: config order, wrap-around, out-of-turn held, a wrong receiver rejected naming the expected one', async () => {
    const logs = await start(['a', 'b', 'c'], {
      turns: { policy: 'round_robin' },
      directions: { a_to_b: ['a', 'b'], b_to_c: ['b', 'c'], c_to_a: ['c', 'a'], a_to_c: ['a', 'c'] },
    });
    p.send('b_to_c', 'early.json', { content: 'b speaks first (held: it is a turn)' });
    p.send('a_to_c', 'skip.json', { content: 'a skips b' });
    await waitFor('rejected', () => existsSync(p.path('rejected', 'skip.json.error.json')));
    expect(json(readFileSync(p.path('rejected', 'skip.json.error.json'), 'utf8')).reason).toBe(
      'under the round_robin policy a must send to b, not c',
    );
    expect(p.ls('b_to_c')).toEqual(['early.json']); // held, untouched
    p.send('a_to_b', '1.json', { content: 'a1' });
    p.send('c_to_a', '3.json', { content: 'c1' });
    p.send('a_to_b', '4.json', { content: 'a2' });
    await waitFor('four delivered', () => p.archive()[3]?.delivered_at);
    expect(p.archive().map((r) => `${r.sender}>${r.receiver}:${r.content}`)).toEqual([
      'a>b:a1',
      'b>c:b speaks first (held: it is a turn)',
      'c>a:c1',
      'a>b:a2',
    ]);
    expect(p.state()).toMatchObject({ current_turn: 'b', message_counter: 4 });
    // Each agent is told whom it answers next.
    await waitFor('b read two', () => readRecorder(logs.b!).pastes.length === 2);
    expect(readRecorder(logs.b!).pastes[0]).toContain('[baton] reply to c with: baton post');
    expect(readRecorder(logs.c!).pastes[0]).toContain('[baton] reply to a with: baton post');
  });

  it('handoff: the speaker picks any agent with post --to, the receiver gets the turn; each is told whom it may address', async () => {
    const logs = await start(['a', 'b', 'c'], { turns: { policy: 'handoff' } });
    expect(
      p
        .ls()
        .filter((n) => n.includes('_to_'))
        .sort(),
    ).toEqual(['a_to_b', 'a_to_c', 'b_to_a', 'b_to_c', 'c_to_a', 'c_to_b']);
    const post = (as: string, to: string, text: string) => p.cli(['post', '--as', as, '--to', to, text]);
    expect((await post('a', 'c', 'a hands to c')).exitCode).toBe(0);
    await waitFor('1', () => p.archive()[0]?.delivered_at);
    // b has not got the turn: its message waits.
    expect((await post('b', 'a', 'b too early')).exitCode).toBe(0);
    expect((await post('c', 'b', 'c hands to b')).exitCode).toBe(0);
    await waitFor('3', () => p.archive()[2]?.delivered_at);
    expect(p.archive().map((r) => `${r.sender}>${r.receiver}`)).toEqual(['a>c', 'c>b', 'b>a']);
    expect(p.archive().map((r) => r.reply_to)).toEqual([null, 'msg_0001', 'msg_0002']);
    expect(p.state()).toMatchObject({ current_turn: 'a', message_counter: 3 });
    await waitFor('c read', () => readRecorder(logs.c!).pastes.length === 1);
    expect(readRecorder(logs.c!).pastes[0]).toContain('baton post --to AGENT "<your message>" (AGENT: a, b)');
    // post with more than one possible receiver and no --to is a usage error naming them.
    const r = await p.cli(['post', '--as', 'a', 'x']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/a can write to b, c: choose one with --to/);
  });
});

describe('four agents', () => {
  it('round_robin and handoff with four agents, driven by baton post, ended by max_turns: the transcript matches the archive', async () => {
    for (const policy of ['round_robin', 'handoff'] as const) {
      const agents = ['w', 'x', 'y', 'z'];
      const logs = await start(agents, { turns: { policy, max_turns: 6 } });
      // Under handoff each speaker picks the next one: here a fixed shuffle, not config order.
      const next: Record<string, string> =
        policy === 'handoff' ? { w: 'y', y: 'x', x: 'z', z: 'w' } : { w: 'x', x: 'y', y: 'z', z: 'w' };
      let speaker = 'w';
      for (let i = 1; i <= 7; i++) {
        const to = next[speaker]!;
        const r = await p.cli([
          'post',
          '--as',
          speaker,
          ...(policy === 'handoff' ? ['--to', to] : []),
          `turn ${i} from ${speaker}`,
        ]);
        expect(r.exitCode, r.stderr).toBe(0);
        if (i <= 6) await waitFor(`turn ${i}`, () => p.archive()[i - 1]?.delivered_at);
        speaker = to;
      }
      await waitFor('finished', () => p.state().finished);
      const archive = p.archive();
      expect(archive.map((r) => `${r.sender}>${r.receiver}`)).toEqual(
        policy === 'handoff' ? ['w>y', 'y>x', 'x>z', 'z>w', 'w>y', 'y>x'] : ['w>x', 'x>y', 'y>z', 'z>w', 'w>x', 'x>y'],
      );
      // The seventh is held, not lost; the transcript is the archive in order.
      const held = agents.flatMap((a) =>
        p
          .ls()
          .filter((d) => d.startsWith(`${a}_to_`))
          .flatMap((d) => p.ls(d)),
      );
      expect(held).toHaveLength(1);
      const log = (await p.cli(['log', '--json'])).stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { id: string; content: string });
      expect(log.map((l) => [l.id, l.content])).toEqual(archive.map((r) => [r.id, r.content]));
      // Every agent that received something read exactly what the archive says, in order.
      for (const a of agents) {
        const mine = archive.filter((r) => r.receiver === a).map((r) => r.id);
        await waitFor(
          `${a} read`,
          () => heads(logs[a]!).filter((h) => h.startsWith('[baton] msg_')).length >= mine.length,
        );
        expect(
          heads(logs[a]!)
            .filter((h) => h.startsWith('[baton] msg_'))
            .map((h) => h.split(' ')[1]),
        ).toEqual(mine);
      }
      await p.stop();
    }
  });
});

describe('termination', () => {
  it('max_turns: the last message is delivered, later files are held (not lost), every pane is told; resume continues', async () => {
    const logs = await start(['claude1', 'claude2'], {
      turns: { max_turns: 3 },
      directions: { c1_to_c2: ['claude1', 'claude2'], c2_to_c1: ['claude2', 'claude1'] },
    });
    for (let i = 1; i <= 3; i++) p.send('c1_to_c2', `a${i}.json`, { content: `c1 says ${i}` });
    for (let i = 1; i <= 3; i++) p.send('c2_to_c1', `b${i}.json`, { content: `c2 says ${i}` });
    await waitFor('finished', () => (p.state().finished as { reason?: string } | undefined)?.reason === 'max_turns');
    expect(p.archive().map((r) => r.content)).toEqual(['c1 says 1', 'c2 says 1', 'c1 says 2']);
    await waitFor('finished event', () => p.events().some((e) => e.event === 'finished')); // written after state.json
    expect(p.events().filter((e) => e.event === 'finished')).toHaveLength(1);
    for (const log of Object.values(logs)) {
      await waitFor('notice', () =>
        readRecorder(log).pastes.some((t) =>
          t.startsWith('[baton] the conversation has finished: it reached max_turns (3)'),
        ),
      );
    }
    await new Promise((r) => setTimeout(r, 500));
    expect(p.archive()).toHaveLength(3);
    expect([...p.ls('c1_to_c2'), ...p.ls('c2_to_c1')]).toEqual(['a3.json', 'b2.json', 'b3.json']);
    const s = await status();
    expect(s.finished).toMatchObject({ reason: 'max_turns' });

    const resumed = await p.cli(['resume', '--json']);
    expect(resumed.exitCode).toBe(0);
    expect(json(resumed.stdout)).toMatchObject({ ok: true, current_turn: 'claude2' });
    // max_turns counts again from the resume: three more.
    await waitFor('three more, then finished again', () => p.archive().length === 6 && p.state().finished);
    expect(
      p
        .archive()
        .map((r) => r.content)
        .slice(3),
    ).toEqual(['c2 says 2', 'c1 says 3', 'c2 says 3']);
  });

  it('stop phrase: only from the agents in stop_from; the message carrying it is delivered', async () => {
    await start(['claude1', 'claude2'], {
      turns: { stop_phrase: '[[DONE]]', stop_from: ['claude2'] },
      directions: { c1_to_c2: ['claude1', 'claude2'], c2_to_c1: ['claude2', 'claude1'] },
    });
    p.send('c1_to_c2', '1.json', { content: 'I think we are [[DONE]]' }); // claude1 does not count
    p.send('c2_to_c1', '2.json', { content: 'agreed. [[DONE]]' });
    p.send('c1_to_c2', '3.json', { content: 'one more?' });
    await waitFor('finished', () => p.state().finished);
    expect(p.state().finished).toMatchObject({ reason: 'stop_phrase' });
    expect(p.archive().map((r) => r.content)).toEqual(['I think we are [[DONE]]', 'agreed. [[DONE]]']);
    await new Promise((r) => setTimeout(r, 400));
    expect(p.ls('c1_to_c2')).toEqual(['3.json']);
  });

  it('a daemon killed between delivering the stop phrase and writing finished: the next start finishes it', async () => {
    await start(
      ['claude1', 'claude2'],
      {
        turns: { stop_phrase: '[[DONE]]' },
        directions: { c1_to_c2: ['claude1', 'claude2'], c2_to_c1: ['claude2', 'claude1'] },
      },
      false,
    );
    // What such a crash leaves: msg_0001 delivered (it carries the phrase), state.json without finished.
    const t = (ms: number) => new Date(Date.now() - ms).toISOString();
    mkdirSync(p.path('archive'), { recursive: true });
    const rec = {
      id: 'msg_0001',
      reply_to: null,
      sender: 'claude1',
      receiver: 'claude2',
      type: 'message',
      content: 'all done [[DONE]]',
      direction: 'c1_to_c2',
      source_file: 'a.json',
      received_at: t(3000),
      delivered_at: t(1000),
    };
    writeFileSync(p.path('archive', 'msg_0001.json'), JSON.stringify(rec));
    writeFileSync(
      p.path('state.json'),
      JSON.stringify({
        current_turn: 'claude2',
        last_message_id: 'msg_0001',
        message_counter: 1,
        pending_reply_to: 'msg_0001',
        turn_started_at: t(2000),
      }),
    );
    const { proc } = await p.startDaemon();
    await waitFor('finished', () => p.state().finished);
    expect(p.state().finished).toMatchObject({ reason: 'stop_phrase' });
    // A resumed conversation is not ended again by the same message at the next start.
    expect((await p.cli(['resume'])).exitCode).toBe(0);
    proc.kill('SIGTERM');
    await proc;
    await p.startDaemon();
    await new Promise((r) => setTimeout(r, 500));
    expect(p.state().finished).toBeNull();
    expect(p.events().filter((e) => e.event === 'finished')).toHaveLength(1);
  });

  it('max_duration_s ends it; baton end does too, with or without a daemon running', async () => {
    await start(['claude1', 'claude2'], {
      turns: { max_duration_s: 1 },
      directions: { c1_to_c2: ['claude1', 'claude2'], c2_to_c1: ['claude2', 'claude1'] },
    });
    await waitFor(
      'max_duration',
      () => (p.state().finished as { reason?: string } | undefined)?.reason === 'max_duration',
      10_000,
    );
    await waitFor('finished event', () => p.events().find((e) => e.event === 'finished')); // written after state.json
    expect(p.events().find((e) => e.event === 'finished')).toMatchObject({ reason: 'max_duration' });

    // Without a daemon, the command does the work itself under the lock.
    p.writeConfig({ ...JSON.parse(readFileSync(p.configFile, 'utf8')), turns: {} });
    await p.stop();
    await start(
      ['claude1', 'claude2'],
      { directions: { c1_to_c2: ['claude1', 'claude2'], c2_to_c1: ['claude2', 'claude1'] } },
      false,
    );
    const ended = await p.cli(['end', '--reason', 'enough for today', '--json']);
    expect(ended.exitCode).toBe(0);
    expect(p.state().finished).toMatchObject({ reason: 'ended', note: 'enough for today' });
    expect((await p.cli(['end'])).stdout).toMatch(/already finished \(ended\)/);
    const doctor = JSON.parse((await p.cli(['doctor', '--json'])).stdout) as {
      checks: Array<{ name: string; level: string; detail: string }>;
    };
    expect(doctor.checks.find((c) => c.name === 'conversation')).toMatchObject({
      level: 'ok',
      detail: expect.stringMatching(/^finished \(ended\)/),
    });
    await p.startDaemon();
    p.send('c1_to_c2', 'later.json', { content: 'held while finished' });
    await new Promise((r) => setTimeout(r, 600));
    expect(p.archive()).toHaveLength(0);
    expect((await p.cli(['resume'])).exitCode).toBe(0);
    await waitFor('delivered after resume', () => p.archive()[0]?.delivered_at);
    expect(p.state().finished).toBeNull();
  });
});

describe('reminders', () => {
  it('a silent turn holder gets max_nudges reminders naming the message it owes, with growing gaps, then stalled; writing clears it', async () => {
    const logs = await start(['claude1', 'claude2'], {
      turns: { timeout_s: 0.4, max_nudges: 2 },
      directions: { c1_to_c2: ['claude1', 'claude2'], c2_to_c1: ['claude2', 'claude1'] },
    });
    p.send('c1_to_c2', '1.json', { content: 'your move' });
    await waitFor('stalled', () => p.state().stalled === true, 15_000);
    const nudged = p.events().filter((e) => e.event === 'nudged');
    expect(nudged.map((e) => [e.agent, e.reply_to, e.n])).toEqual([
      ['claude2', 'msg_0001', 1],
      ['claude2', 'msg_0001', 2],
    ]);
    // Growing gaps: reminder n is never before T × (2^n − 1) into the turn, stalled never before T × 7.
    // (Lower bounds only: a loaded machine may run late, never early.)
    const turnStart = Date.parse(p.state().turn_started_at as string);
    const at = (e: Record<string, unknown>) => Date.parse(e.ts as string) - turnStart;
    expect(at(nudged[0]!)).toBeGreaterThanOrEqual(400);
    expect(at(nudged[1]!)).toBeGreaterThanOrEqual(1200);
    await waitFor('stalled event', () => p.events().some((e) => e.event === 'stalled')); // written after state.json
    expect(p.events().filter((e) => e.event === 'stalled')).toHaveLength(1);
    expect(at(p.events().find((e) => e.event === 'stalled')!)).toBeGreaterThanOrEqual(2800);
    const reminderPastes = () => readRecorder(logs.claude2!).pastes.filter((t) => t.startsWith('[baton] reminder'));
    await waitFor('both reminders read', () => reminderPastes().length === 2);
    const reminders = reminderPastes();
    expect(reminders.map((t) => t.split('\n')[0])).toEqual([
      '[baton] reminder 1/2: claude2, it is your turn and msg_0001 is waiting for your reply.',
      '[baton] reminder 2/2: claude2, it is your turn and msg_0001 is waiting for your reply.',
    ]);
    // Reminders change no ID and no turn.
    expect(p.state()).toMatchObject({ current_turn: 'claude2', message_counter: 1, nudges: 2 });
    expect((await status()).stalled).toBe(true);
    p.send('c2_to_c1', '2.json', { content: 'sorry, here' });
    await waitFor('delivered', () => p.archive()[1]?.delivered_at);
    expect(p.state()).toMatchObject({ stalled: false, nudges: 0, current_turn: 'claude1' });
  });
});

describe('a person in the loop', () => {
  it('send: typed as user_NNNN, archived with its own counter, no turn moved; also without a daemon', async () => {
    const logs = await start(['claude1', 'claude2'], {
      directions: { c1_to_c2: ['claude1', 'claude2'], c2_to_c1: ['claude2', 'claude1'] },
    });
    p.send('c1_to_c2', '1.json', { content: 'first' });
    await waitFor('msg_0001', () => p.archive()[0]?.delivered_at);
    const before = p.state();
    const r = await p.cli(['send', '--to', 'claude1', 'please be brief; $(rm -rf ~) \x1b[201~ stays text']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^user_0001 typed into claude1's pane/);
    const rec = json(readFileSync(p.path('archive', 'user_0001.json'), 'utf8'));
    expect(rec).toMatchObject({ id: 'user_0001', sender: 'user', receiver: 'claude1' });
    expect(rec.delivered_at).toBeTruthy();
    await waitFor('typed', () => heads(logs.claude1!).includes('[baton] user_0001 from user'));
    expect(readRecorder(logs.claude1!).stray).toBe('');
    const after = p.state();
    for (const k of ['current_turn', 'message_counter', 'last_message_id', 'pending_reply_to'])
      expect(after[k]).toEqual(before[k]);
    // Agent IDs are untouched by user messages.
    p.send('c2_to_c1', '2.json', { content: 'second' });
    await waitFor('msg_0002', () => p.archive()[1]?.delivered_at);
    expect(p.archive().map((x) => x.id)).toEqual(['msg_0001', 'msg_0002']);
    // Usage errors.
    expect((await p.cli(['send', 'no target'])).exitCode).toBe(2);
    expect((await p.cli(['send', '--to', 'nobody', 'x'])).exitCode).toBe(2);
    // No daemon: the command types it itself.
    await execa('kill', [
      '-TERM',
      String((JSON.parse(readFileSync(p.path('daemon.pid'), 'utf8')) as { pid: number }).pid),
    ]);
    await waitFor('daemon stopped', async () => ((await status()).daemon as { running: boolean }).running === false);
    const r2 = await p.cli(['send', '--to', 'claude2', 'still there?']);
    expect(r2.exitCode, r2.stdout + r2.stderr).toBe(0);
    await waitFor('typed 2', () => heads(logs.claude2!).includes('[baton] user_0002 from user'));
  });

  it('moderated: messages wait in pending/ with no ID until approved; a rejection goes back to the sender, whose turn it stays', async () => {
    const logs = await start(['claude1', 'claude2'], {
      turns: { moderated: true },
      directions: { c1_to_c2: ['claude1', 'claude2'], c2_to_c1: ['claude2', 'claude1'] },
    });
    p.send('c1_to_c2', 'hello.json', { content: 'may I?' });
    await waitFor('pending', () => existsSync(p.path('pending', 'c1_to_c2', 'hello.json')));
    // (No ID and no turn moved while it waits, and gone from the queue once approved: approvals.contract.ts.)
    expect((await status()).pending).toEqual(['c1_to_c2/hello.json']);
    expect((await p.cli(['approve', 'nothing.json'])).exitCode).toBe(1);
    expect((await p.cli(['approve'])).exitCode).toBe(2);
    const ok = await p.cli(['approve', 'hello.json']);
    expect(ok.exitCode, ok.stdout).toBe(0);
    expect(ok.stdout).toMatch(/c1_to_c2\/hello.json approved as msg_0001/);
    await waitFor('delivered', () => p.archive()[0]?.delivered_at);

    p.send('c2_to_c1', 'reply.json', { content: 'rude reply' });
    await waitFor('pending 2', () => existsSync(p.path('pending', 'c2_to_c1', 'reply.json')));
    const no = await p.cli(['reject', 'c2_to_c1/reply.json', '--reason', 'be polite']);
    expect(no.exitCode, no.stdout).toBe(0);
    expect(json(readFileSync(p.path('rejected', 'reply.json.error.json'), 'utf8')).reason).toBe(
      'rejected by a person: be polite',
    );
    await waitFor('told', () => readRecorder(logs.claude2!).pastes.some((t) => t.includes('A person said: be polite')));
    expect(p.state()).toMatchObject({ current_turn: 'claude2', message_counter: 1 });
    p.send('c2_to_c1', 'reply2.json', { content: 'a polite reply' });
    await waitFor('pending 3', () => existsSync(p.path('pending', 'c2_to_c1', 'reply2.json')));
    expect((await p.cli(['approve', '--all'])).exitCode).toBe(0);
    await waitFor('msg_0002', () => p.archive()[1]?.delivered_at);
    expect(p.archive()[1]).toMatchObject({ id: 'msg_0002', content: 'a polite reply', reply_to: 'msg_0001' });
  });
});

describe('moderated mode after a crash', () => {
  it('a move into pending/ cut short (the file in both places) is finished, not approved twice', async () => {
    await start(
      ['claude1', 'claude2'],
      {
        turns: { moderated: true },
        directions: { c1_to_c2: ['claude1', 'claude2'], c2_to_c1: ['claude2', 'claude1'] },
      },
      false,
    );
    mkdirSync(p.path('pending', 'c1_to_c2'), { recursive: true });
    mkdirSync(p.path('c1_to_c2'), { recursive: true });
    writeFileSync(p.path('pending', 'c1_to_c2', 'once.json'), JSON.stringify({ content: 'only once' }));
    linkSync(p.path('pending', 'c1_to_c2', 'once.json'), p.path('c1_to_c2', 'once.json')); // linked, never unlinked
    await p.startDaemon();
    await waitFor('inbox copy gone', () => p.ls('c1_to_c2').length === 0);
    expect(p.ls('pending', 'c1_to_c2')).toEqual(['once.json']);
    expect((await p.cli(['approve', '--all'])).exitCode).toBe(0);
    await waitFor('delivered', () => p.archive()[0]?.delivered_at);
    await new Promise((r) => setTimeout(r, 500));
    expect(p.archive()).toHaveLength(1);
    expect(p.ls('pending', 'c1_to_c2')).toEqual([]);
  });
});

describe('a request cut short by a crash', () => {
  it('an approve the daemon did but never answered is answered "approved" at the next start, not "no such file"', async () => {
    await start(
      ['claude1', 'claude2'],
      {
        turns: { moderated: true },
        directions: { c1_to_c2: ['claude1', 'claude2'], c2_to_c1: ['claude2', 'claude1'] },
      },
      false,
    );
    const req = '00000000000000000001-abcdef.req.json';
    mkdirSync(p.path('archive'), { recursive: true });
    mkdirSync(p.path('requests'), { recursive: true });
    const now = new Date().toISOString();
    const rec = {
      id: 'msg_0001',
      reply_to: null,
      sender: 'claude1',
      receiver: 'claude2',
      type: 'message',
      content: 'approved before the crash',
      direction: 'c1_to_c2',
      source_file: 'x.json',
      approved_by: req,
      received_at: now,
      delivered_at: now,
    };
    writeFileSync(p.path('archive', 'msg_0001.json'), JSON.stringify(rec));
    writeFileSync(
      p.path('state.json'),
      JSON.stringify({
        current_turn: 'claude2',
        last_message_id: 'msg_0001',
        message_counter: 1,
        pending_reply_to: 'msg_0001',
        turn_started_at: now,
      }),
    );
    writeFileSync(p.path('requests', `${req}.taken`), JSON.stringify({ op: 'approve', file: 'x.json' })); // taken, never answered
    await p.startDaemon();
    const reply = await waitFor('reply', () =>
      existsSync(p.path('requests', '00000000000000000001-abcdef.reply.json'))
        ? JSON.parse(readFileSync(p.path('requests', '00000000000000000001-abcdef.reply.json'), 'utf8'))
        : null,
    );
    expect(reply).toMatchObject({ ok: true, message: 'x.json approved as msg_0001' });
    // The reply is written first, then the request goes (a crash between loses no answer).
    await waitFor(
      'the request removed after its reply',
      () => p.ls('requests').filter((n) => n.includes('.req.json')).length === 0,
    );
  });
});

describe('seeing the conversation', () => {
  it('log prints the transcript (text, --json, --md), --follow streams deliveries; status shows control fields', async () => {
    await start(['claude1', 'claude2'], {
      turns: { max_turns: 10 },
      directions: { c1_to_c2: ['claude1', 'claude2'], c2_to_c1: ['claude2', 'claude1'] },
    });
    p.send('c1_to_c2', '1.json', { content: 'line one\nline two', subject: 'plan' });
    await waitFor('1', () => p.archive()[0]?.delivered_at);
    await p.cli(['send', '--to', 'claude2', 'a person chimes in']);
    p.send('c2_to_c1', '2.json', { content: 'answer', type: 'response' });
    await waitFor('2', () => p.archive()[1]?.delivered_at);

    const text = (await p.cli(['log'])).stdout;
    expect(text).toMatch(/^msg_0001 {2}claude1 → claude2 {2}\S+ \S+ {2}— plan\n {4}line one\n {4}line two\n/);
    expect(text.indexOf('user_0001')).toBeGreaterThan(text.indexOf('msg_0001'));
    expect(text.indexOf('user_0001')).toBeLessThan(text.indexOf('msg_0002'));
    expect(text).toMatch(/msg_0002 {2}claude2 → claude1 {2}.*reply to msg_0001 {2}\[response\]/);
    const lines = (await p.cli(['log', '--json'])).stdout.trim().split('\n').map(json);
    expect(lines.map((l) => l.id)).toEqual(['msg_0001', 'user_0001', 'msg_0002']);
    expect(lines[2]).toEqual(json(readFileSync(p.path('archive', 'msg_0002.json'), 'utf8')));
    const md = (await p.cli(['log', '--md'])).stdout;
    expect(md).toMatch(/^# baton conversation/);
    expect(md).toContain('### msg_0001 — plan');
    expect(md).toContain('reply to [msg_0001](#msg_0001)');
    expect((await p.cli(['log', '--md', '--json'])).exitCode).toBe(2);

    const follow = execa('node', [CLI, 'log', '--follow', '--json', '--config', p.configFile], {
      env: p.env,
      reject: false,
    });
    let out = '';
    follow.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    await waitFor('history printed', () => out.split('\n').filter(Boolean).length === 3);
    p.send('c1_to_c2', '3.json', { content: 'streamed' });
    await waitFor('streamed', () => out.includes('"streamed"'));
    follow.kill('SIGINT');
    expect((await follow).exitCode).toBe(0);
    expect(
      out
        .trim()
        .split('\n')
        .map(json)
        .map((l) => l.id),
    ).toEqual(['msg_0001', 'user_0001', 'msg_0002', 'msg_0003']);

    const s = await status();
    expect(s).toMatchObject({
      policy: 'alternate',
      current_turn: 'claude2',
      message_counter: 3,
      max_turns: 10,
      nudges: 0,
      stalled: false,
      finished: null,
      pending: [],
    });
    expect(typeof s.seconds_in_turn).toBe('number');
    expect(s.agents).toMatchObject({
      claude1: { alive: true, command: 'node', problem: null },
      claude2: { alive: true },
    });
    expect((s.agents as Record<string, { last_activity: string }>).claude1!.last_activity).toMatch(/^\d{4}-/);
  });
});
