/**
 * Group conversations (docs/protocol.md §11) across machines on the PostgreSQL bus, with a real server this file
 * starts: three agents on two machines, each pane reading — byte for byte — the catch-up every machine's
 * daemon computes from the one archive, and a person's note to all typed by each machine into its own agents.
 */
import { describe, expect, it } from 'vitest';
import type { ArchiveRecord } from '../../src/core/record.js';
import { conversationOf, expectedText } from '../helpers/group.js';
import { readRecorder, waitFor } from '../helpers/harness.js';
import { diagnose, machinesConfig, query, useMachines } from '../helpers/machines.js';
import { usePostgres } from '../helpers/postgres.js';

const server = usePostgres();
const machine = useMachines();
let n = 0;
const conversation = () => `group-${process.pid}-${n++}`;

const records = async (conv: string): Promise<ArchiveRecord[]> =>
  (
    await query<{ record: ArchiveRecord }>(server.url, 'SELECT record FROM baton.archive WHERE conversation = $1', [
      conv,
    ])
  ).map((r) => r.record);

const order = ['a', 'b', 'c'];
function config(conv: string, turns: Record<string, unknown>) {
  return machinesConfig(server.url, conv, {
    agents: {
      a: { kind: 'generic', command: 'x', host: 'alpha' },
      b: { kind: 'generic', command: 'x', host: 'beta' },
      c: { kind: 'generic', command: 'x', host: 'beta' },
    },
    directions: undefined,
    turns,
  });
}

describe('catching up across machines', () => {
  it('round_robin over two machines: every pane reads the same catch-up the files bus would type', async () => {
    const conv = conversation();
    const cfg = config(conv, { policy: 'round_robin', max_turns: 6 });
    const [alpha, beta] = [machine('alpha', cfg), machine('beta', cfg)];
    const logs = {
      a: await alpha.recorder('a', { reply: true }),
      b: await beta.recorder('b', { reply: true }),
      c: await beta.recorder('c', { reply: true }),
    };
    await alpha.daemon();
    await beta.daemon();
    try {
      const started = await beta.cli(['start', 'plan the release together']);
      expect(started.exitCode, started.stdout + started.stderr).toBe(0);
      await waitFor('finished', async () => (await alpha.status())?.finished, 60_000);
      const all = await records(conv);
      const msgs = all.filter((r) => r.id.startsWith('msg_')).sort((x, y) => (x.id < y.id ? -1 : 1));
      expect(conversationOf(all).map((r) => `${r.id} ${r.sender}>${r.receiver} ${r.reply_to}`)).toEqual([
        'msg_0001 a>b null',
        'msg_0002 b>c msg_0001',
        'msg_0003 c>a msg_0002',
        'msg_0004 a>b msg_0003',
        'msg_0005 b>c msg_0004',
        'msg_0006 c>a msg_0005',
      ]);
      for (const agent of order) {
        const mine = msgs.filter((r) => r.receiver === agent);
        const read = () => readRecorder(logs[agent as 'a']).pastes.filter((t) => t.startsWith('[baton] msg_'));
        await waitFor(`${agent} read ${mine.length}`, () => read().length >= mine.length, 30_000);
        expect(read(), `${agent}'s pane`).toEqual(
          mine.map((r) => expectedText(all, r, { policy: 'round_robin', order })),
        );
      }
      // c, on beta, read the topic alpha's a got and a's message to b; a, on alpha, what b told c.
      expect(readRecorder(logs.c).pastes.find((t) => t.startsWith('[baton] msg_0002 '))).toContain(
        '> user_0001 user → a [task] (the topic a person set):\n> plan the release together\n>\n> msg_0001 a → b:',
      );
      expect(readRecorder(logs.a).pastes.find((t) => t.startsWith('[baton] msg_0003 '))).toContain(
        '> msg_0002 b → c (reply to msg_0001):',
      );
    } catch (err) {
      console.error(await diagnose(server.url, conv, [alpha, beta], logs));
      throw err;
    }
  }, 150_000);

  it("a person's note to all: each machine types it into its own agents, recorded once with every delivery", async () => {
    const conv = conversation();
    const cfg = config(conv, { policy: 'round_robin' });
    const [alpha, beta] = [machine('alpha', cfg), machine('beta', cfg)];
    const logs = { a: await alpha.recorder('a'), b: await beta.recorder('b'), c: await beta.recorder('c') };
    await alpha.daemon();
    await beta.daemon();
    const r = await alpha.cli(['send', '--to', 'all', 'a note for everyone']);
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toBe('user_0001 typed into a, b, c');
    const [note] = (await records(conv)).filter((x) => x.id === 'user_0001');
    expect(note).toMatchObject({ sender: 'user', receiver: 'all', delivered_at: expect.any(String) });
    expect(Object.keys(note!.deliveries ?? {}).sort()).toEqual(order);
    expect(order.every((a) => note!.deliveries?.[a]?.at && note!.deliveries[a]!.confirmed)).toBe(true);
    const expected =
      "[baton] user_0001 from user\na note for everyone\n\n[baton] a person's note to every agent: follow it; it is not a turn (it is a's turn)";
    for (const a of order) {
      await waitFor(`${a} read it`, () => readRecorder(logs[a as 'a']).pastes.includes(expected), 15_000);
      expect(
        readRecorder(logs[a as 'a']).pastes.filter((t) => t.startsWith('[baton] user_')),
        a,
      ).toEqual([expected]);
    }
    const log = (await beta.cli(['log', '--json'])).stdout.trim().split('\n');
    expect(log).toHaveLength(1);
  }, 120_000);
});
