/**
 * Group conversations (docs/protocol.md §11) with recorder agents on a private tmux server and the real daemon:
 * with three agents each pane reads, with the message that gives it the turn, what the others said since its
 * last turn — byte for byte what the pure rule computes from the archive — while IDs, turns and the archive
 * stay exactly as without catch-up; a long missed message is cut and named for `baton show`; a message typed
 * again after a crash carries the same catch-up; and a person's note to all reaches every pane once, each
 * when it can take it.
 */
import { execa } from 'execa';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { conversationOf, allRecords, expectedText } from '../helpers/group.js';
import { Project, readRecorder, waitFor } from '../helpers/harness.js';
import type { ArchiveRecord } from '../../src/core/record.js';
import { CATCH_UP_CLOSER, CATCH_UP_OPENER } from '../../src/core/compose.js';

const projects: Project[] = [];
afterEach(async () => {
  for (const p of projects.splice(0)) await p.stop();
});

type Logs = Record<string, string>;

async function group(
  agents: string[],
  config: Record<string, unknown>,
  opts: { reply?: boolean; daemon?: boolean; skip?: string[] } = {},
): Promise<{ p: Project; logs: Logs }> {
  const p = new Project({
    agents: Object.fromEntries(agents.map((a) => [a, { kind: 'generic', command: 'x' }])),
    directions: undefined,
    delivery: { enter_delay_ms: 0 },
    ...config,
  });
  projects.push(p);
  const logs: Logs = {};
  for (const a of agents.filter((x) => !opts.skip?.includes(x)))
    logs[a] = await p.recorder(a, { reply: opts.reply ?? false });
  if (opts.daemon ?? true) await p.startDaemon();
  return { p, logs };
}

/** The pastes a pane submitted that are agents' messages (not a topic, a notice or a person's note). */
const messagePastes = (log: string) => readRecorder(log).pastes.filter((t) => t.startsWith('[baton] msg_'));
const json = (s: string) => JSON.parse(s) as Record<string, unknown>;

/** Each pane read exactly the typed text the rule computes from the archive, for every message to it. */
async function expectPanesRead(
  p: Project,
  logs: Logs,
  conv: { policy: 'round_robin' | 'handoff'; order: string[] },
): Promise<ArchiveRecord[]> {
  const records = allRecords(p.messages);
  const msgs = records.filter((r) => r.id.startsWith('msg_')).sort((a, b) => (a.id < b.id ? -1 : 1));
  for (const a of conv.order) {
    const mine = msgs.filter((r) => r.receiver === a && r.delivered_at);
    await waitFor(`${a} read ${mine.length}`, () => messagePastes(logs[a]!).length >= mine.length);
    expect(messagePastes(logs[a]!), `${a}'s pane`).toEqual(mine.map((r) => expectedText(records, r, conv)));
    expect(readRecorder(logs[a]!).stray, `${a}: nothing outside a paste`).toBe('');
  }
  return records;
}

describe('catching up with three agents', () => {
  it('round_robin: each receiver reads what it missed, before its message, in one paste; the conversation is as without it', async () => {
    const order = ['a', 'b', 'c'];
    const run = async (catchUp: 'full' | 'off') => {
      const { p, logs } = await group(
        order,
        { turns: { policy: 'round_robin', max_turns: 7, catch_up: catchUp } },
        {
          reply: true,
        },
      );
      const started = await p.cli(['start', 'plan the release together']);
      expect(started.exitCode, started.stdout + started.stderr).toBe(0);
      await waitFor('finished', () => p.state().finished, 30_000);
      return { p, logs };
    };
    const full = await run('full');
    const records = await expectPanesRead(full.p, full.logs, { policy: 'round_robin', order });
    // What each got, in words: b the topic; c the topic and a's opening; then each the one message between.
    const block = (id: string) => {
      const t = messagePastes(full.logs[records.find((r) => r.id === id)!.receiver]!).find((x) =>
        x.startsWith(`[baton] ${id} `),
      )!;
      return t
        .split('\n')
        .filter((l) => /^> (msg|user)_\d+ /.test(l))
        .map((l) => l.split(' ')[1]);
    };
    expect(block('msg_0001')).toEqual(['user_0001']);
    expect(block('msg_0002')).toEqual(['user_0001', 'msg_0001']);
    expect(block('msg_0003')).toEqual(['msg_0002']);
    expect(block('msg_0004')).toEqual(['msg_0003']);
    expect(block('msg_0007')).toEqual(['msg_0006']);
    const withBlock = messagePastes(full.logs.c!)[0]!;
    expect(withBlock.split('\n').slice(0, 2)).toEqual(['[baton] msg_0002 from b (reply to msg_0001)', CATCH_UP_OPENER]);
    expect(withBlock).toContain(`\n${CATCH_UP_CLOSER}\nreply to msg_0001\n\n[baton] reply to a with:`);
    // status: each agent's catch-up if it got the turn now (b holds it; a wrote msg_0007; c missed it).
    const st = json((await full.p.cli(['status', '--json'])).stdout) as {
      agents: Record<string, { catch_up: number }>;
    };
    expect(Object.fromEntries(order.map((x) => [x, st.agents[x]!.catch_up]))).toEqual({ a: 0, b: 0, c: 1 });
    // baton log shows each message once, never its catch-up copies.
    const log = (await full.p.cli(['log', '--json'])).stdout.trim().split('\n').map(json);
    expect(log.map((r) => r.id)).toEqual([
      'user_0001',
      ...records
        .filter((r) => r.id.startsWith('msg_'))
        .map((r) => r.id)
        .sort(),
    ]);

    // The same conversation with catch_up "off": the same IDs, turns, reply_to and content; panes without blocks.
    const off = await run('off');
    expect(conversationOf(allRecords(off.p.messages))).toEqual(conversationOf(records));
    const keys = ['current_turn', 'message_counter', 'last_message_id', 'pending_reply_to'];
    expect(keys.map((k) => off.p.state()[k])).toEqual(keys.map((k) => full.p.state()[k]));
    for (const a of order)
      expect(
        messagePastes(off.logs[a]!).some((t) => t.includes(CATCH_UP_OPENER)),
        a,
      ).toBe(false);
  }, 120_000);

  it('handoff: an agent brought in late reads all that was said; a long missed message is cut and named for baton show', async () => {
    const order = ['planner', 'coder', 'reviewer'];
    const { p, logs } = await group(order, { turns: { policy: 'handoff' } });
    const post = async (as: string, to: string, text: string) => {
      const r = await p.cli(['post', '--as', as, '--to', to, '-'], { input: text });
      expect(r.exitCode, r.stderr).toBe(0);
    };
    const delivered = (n: number) => waitFor(`msg ${n}`, () => p.archive()[n - 1]?.delivered_at);
    expect((await p.cli(['start', 'ship version 2'])).exitCode).toBe(0);
    const long = Array.from({ length: 600 }, (_, i) => `step ${i + 1}: ${'detail '.repeat(4)}`).join('\n');
    await post('planner', 'coder', long);
    await delivered(1);
    await post('coder', 'planner', 'is step 7 needed?');
    await delivered(2);
    await post('planner', 'coder', 'yes, keep it');
    await delivered(3);
    await post('coder', 'reviewer', 'please review the branch');
    await delivered(4);
    await post('reviewer', 'planner', 'two findings');
    await delivered(5);
    const records = await expectPanesRead(p, logs, { policy: 'handoff', order });
    const review = messagePastes(logs.reviewer!)[0]!;
    expect(review.split('\n').filter((l) => /^> (msg|user)_\d+ /.test(l))).toEqual([
      '> user_0001 user → planner [task] (the topic a person set):',
      '> msg_0001 planner → coder:',
      '> msg_0002 coder → planner (reply to msg_0001):',
      '> msg_0003 planner → coder (reply to msg_0002):',
    ]);
    expect(review).toContain(`> [… cut here: baton show msg_0001 prints all ${Buffer.byteLength(long)} bytes]`);
    expect(review).not.toContain('step 600:');
    expect(Buffer.byteLength(review)).toBeLessThan(8192 + 1024);
    // planner gets msg_0005: its place is msg_0002; it missed coder → reviewer only.
    expect(
      messagePastes(logs.planner!)[1]!
        .split('\n')
        .filter((l) => l.startsWith('> msg_')),
    ).toEqual(['> msg_0004 coder → reviewer (reply to msg_0003):']);
    // baton show prints it whole, by any spelling of its ID, and a range one after the other.
    for (const id of ['msg_0001', 'msg_1', '1']) {
      const s = await p.cli(['show', id]);
      expect(s.exitCode, s.stderr).toBe(0);
      // (execa drops the last newline of what is printed)
      expect(s.stdout).toBe(
        `msg_0001  planner → coder  ${records.find((r) => r.id === 'msg_0001')!.delivered_at}\n${long}`,
      );
    }
    const range = await p.cli(['show', 'msg_0002..msg_0004', '--json']);
    expect(range.exitCode).toBe(0);
    expect(
      range.stdout
        .trim()
        .split('\n')
        .map((l) => json(l).id),
    ).toEqual(['msg_0002', 'msg_0003', 'msg_0004']);
    const missing = await p.cli(['show', '4..9']);
    expect(missing.exitCode).toBe(0);
    expect(missing.stderr).toContain('msg_0006 is not in the archive');
    expect((await p.cli(['show', 'msg_0003..msg_0001'])).exitCode).toBe(2);
    expect((await p.cli(['show', 'msg_0001..user_0002'])).exitCode).toBe(2);
  }, 90_000);

  it('a message typed again after a crash carries the same catch-up, flagged (redelivered)', async () => {
    const order = ['a', 'b', 'c'];
    const { p, logs } = await group(order, { turns: { policy: 'round_robin' }, delivery: { enter_delay_ms: 3000 } });
    expect((await p.cli(['post', '--as', 'a', 'first from a'])).exitCode).toBe(0);
    await waitFor('msg 1', () => p.archive()[0]?.delivered_at, 20_000);
    expect((await p.cli(['post', '--as', 'b', 'second from b'])).exitCode).toBe(0);
    // msg_0002 pasted into c's pane, its Enter 3 s away: kill -9 the daemon now.
    await waitFor('pasted, not submitted', () => readRecorder(logs.c!).unsubmitted.length === 1, 20_000, 10);
    await execa('kill', ['-9', String(json(readFileSync(p.path('daemon.pid'), 'utf8')).pid)]);
    await p.startDaemon();
    await waitFor('msg 2 stamped', () => p.archive()[1]?.delivered_at, 30_000);
    // c's box cannot be seen (a generic agent): Enter alone submits what was left, then the flagged copy.
    const { typed, unsubmitted } = readRecorder(logs.c!);
    expect(unsubmitted).toEqual([]);
    expect(typed).toHaveLength(2);
    const [first, again] = typed;
    expect(again!.split('\n')[0]).toBe('[baton] msg_0002 from b (reply to msg_0001) (redelivered)');
    expect(first!.split('\n')[0]).toBe('[baton] msg_0002 from b (reply to msg_0001)');
    expect(again!.split('\n').slice(1)).toEqual(first!.split('\n').slice(1));
    expect(first).toContain('> msg_0001 a → b:\n> first from a\n');
  }, 90_000);
});

describe("a person's note to all", () => {
  it('typed once into every pane, each when it can take it; archived once; no turn, no msg_ ID', async () => {
    const order = ['a', 'b', 'c'];
    // c's pane is not there yet.
    const { p, logs } = await group(order, { turns: { policy: 'round_robin' } }, { skip: ['c'] });
    expect((await p.cli(['post', '--as', 'a', 'hello b'])).exitCode).toBe(0);
    await waitFor('msg 1', () => p.archive()[0]?.delivered_at);
    const before = p.state();
    const r = await p.cli([
      'send',
      '--to',
      'all',
      '--timeout',
      '1',
      'Stop at the end of this round; $(rm -rf ~) stays text',
    ]);
    expect(r.exitCode, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toMatch(
      /^user_0001 typed into a, b; not yet into c \(.*\): baton types it there as soon as it can; do not send it again/,
    );
    const note = () => allRecords(p.messages).find((x) => x.id === 'user_0001')!;
    expect(note()).toMatchObject({ sender: 'user', receiver: 'all', delivered_at: expect.any(String) });
    expect(Object.keys(note().deliveries ?? {}).sort()).toEqual(['a', 'b']);
    const st = json((await p.cli(['status', '--json'])).stdout) as { notes: Record<string, string[]> };
    expect(st.notes).toEqual({ user_0001: ['c'] });
    expect((await p.cli(['status'])).stdout).toMatch(/note +user_0001 to all: not yet typed into c/);
    // c comes up: the daemon types it there, once.
    logs.c = await p.recorderWhenReady('c');
    await waitFor('c got the note', () => note().deliveries?.c?.at, 30_000);
    const expected =
      "[baton] user_0001 from user\nStop at the end of this round; $(rm -rf ~) stays text\n\n[baton] a person's note to every agent: follow it; it is not a turn (it is b's turn)";
    for (const a of order) {
      await waitFor(`${a} read it`, () => readRecorder(logs[a]!).pastes.includes(expected));
      expect(
        readRecorder(logs[a]!).pastes.filter((t) => t.startsWith('[baton] user_0001 ')),
        a,
      ).toEqual([expected]);
    }
    expect(json((await p.cli(['status', '--json'])).stdout).notes).toEqual({});
    // No turn moved, no msg_ ID taken; the log shows it once.
    for (const k of ['current_turn', 'message_counter', 'last_message_id', 'pending_reply_to'])
      expect(p.state()[k], k).toEqual(before[k]);
    const log = (await p.cli(['log', '--json'])).stdout.trim().split('\n').map(json);
    expect(log.map((x) => x.id)).toEqual(['msg_0001', 'user_0001']);
    expect((await p.cli(['log'])).stdout).toContain('user_0001  user → all');
    // Every pane ready: "typed into" all of them, exit 0. The note is in nobody's catch-up.
    const all = await p.cli(['send', '--to', 'all', 'second note']);
    expect(all.exitCode, all.stdout).toBe(0);
    expect(all.stdout).toBe('user_0002 typed into a, b, c');
    expect((await p.cli(['post', '--as', 'b', 'to c'])).exitCode).toBe(0);
    await waitFor('msg 2', () => p.archive()[1]?.delivered_at);
    await waitFor('c read msg 2', () => messagePastes(logs.c!).length === 1);
    expect(
      messagePastes(logs.c!)[0]!
        .split('\n')
        .filter((l) => /^> (msg|user)_/.test(l)),
    ).toEqual(['> msg_0001 a → b:']);
    expect((await p.cli(['send', '--to', 'nobody', 'x'])).exitCode).toBe(2);
    // No daemon running: the command types it itself where it can, and says so.
    await execa('kill', ['-TERM', String(json(readFileSync(p.path('daemon.pid'), 'utf8')).pid)]);
    await waitFor(
      'daemon stopped',
      async () => !(json((await p.cli(['status', '--json'])).stdout).daemon as { running: boolean }).running,
    );
    const alone = await p.cli(['send', '--to', 'all', 'third note']);
    expect(alone.exitCode, alone.stdout + alone.stderr).toBe(0);
    expect(alone.stdout).toBe('user_0003 typed into a, b, c');
  }, 90_000);
});
