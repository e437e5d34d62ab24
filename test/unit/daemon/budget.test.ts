/**
 * daemon/budget.ts: a turn's tokens counted once its transcript has them — waited for while the turn's
 * record is not complete (up to COMPLETE_WAIT_MS) or the prompt is not there at all (up to GIVE_UP_MS) —
 * then put on the message that opened the turn and into the state's totals, ending the conversation at
 * turns.max_tokens. Against an in-memory transcript and state, with performance.now() as a clock the test moves.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { parseConfig } from '../../../src/config/config.js';
import type { FinishReason } from '../../../src/core/conversation.js';
import type { Amendment } from '../../../src/core/record.js';
import type { State } from '../../../src/core/state.js';
import { Budget, COMPLETE_WAIT_MS, GIVE_UP_MS } from '../../../src/daemon/budget.js';
import { log } from '../../../src/lib/log.js';
import { fakeDeliveryBus, recordingLog } from './fake-delivery-bus.js';

let now = 0;
beforeEach(() => {
  now = 1000;
  vi.spyOn(performance, 'now').mockImplementation(() => now);
});
afterEach(() => vi.restoreAllMocks());

const usage = (input: number, output: number) => ({ input_tokens: input, output_tokens: output });
/** A Claude Code turn in its transcript: the prompt, one reply, and its turn_duration record when `done`. */
const turn = (promptId: string, tokens: [number, number], done: boolean) => [
  { type: 'user', uuid: `u-${promptId}`, promptId },
  {
    type: 'assistant',
    uuid: `a-${promptId}`,
    parentUuid: `u-${promptId}`,
    message: { id: `m-${promptId}`, usage: usage(...tokens) },
  },
  ...(done ? [{ type: 'system', subtype: 'turn_duration', uuid: `d-${promptId}`, parentUuid: `a-${promptId}` }] : []),
];

function world(opts: { maxTokens?: number; state?: Partial<State> } = {}) {
  const config = parseConfig(
    {
      agents: { a: { kind: 'claude', command: 'claude' }, b: { kind: 'claude', command: 'claude' } },
      directions: { a_to_b: ['a', 'b'], b_to_a: ['b', 'a'] },
      turns: { max_tokens: opts.maxTokens ?? 0 },
    },
    '/p/config.json',
    '/p',
    { BATON_HOST: 'here' },
  );
  let state: State = {
    current_turn: 'a',
    last_message_id: 'msg_0002',
    message_counter: 2,
    pending_reply_to: 'msg_0002',
    ...opts.state,
  };
  const amended: Array<{ id: string; fields: Amendment }> = [];
  const finished: FinishReason[] = [];
  const wakes: number[] = [];
  const opened: string[] = [];
  const transcripts = new Map<string, unknown[]>();
  const refused = new Map<string, string>();
  const { log: recording, lines } = recordingLog(log);
  const bus = fakeDeliveryBus({
    amend: async (id, fields) => {
      amended.push({ id, fields });
      return true;
    },
    update: async (change) => (state = change(state)),
  });
  const budget = new Budget({
    config,
    bus,
    log: recording,
    transcript: (_agent, path) => {
      opened.push(path);
      return {
        read: async () => transcripts.get(path) ?? [],
        get refused() {
          return refused.get(path) ?? null;
        },
      };
    },
    messageOf: (agent, promptId) => (promptId.startsWith('p') ? `msg_for_${agent}_${promptId}` : null),
    finish: async (reason) => {
      finished.push(reason);
      state = { ...state, finished: { reason, at: 'now' } };
    },
    wakeIn: (ms) => void wakes.push(ms),
  });
  return { budget, transcripts, refused, amended, finished, wakes, opened, lines, state: () => state };
}

describe('a turn that ended', () => {
  it('is looked at soon, and counted once its transcript has the whole turn', async () => {
    const w = world();
    w.transcripts.set('/t/b.jsonl', turn('p1', [100, 20], true));
    w.budget.ended('b', '/t/b.jsonl', 'p1');
    expect(w.wakes).toEqual([200]);
    await w.budget.run();
    expect(w.amended).toEqual([
      { id: 'msg_for_b_p1', fields: { turn_tokens: { input: 100, output: 20, cache_creation: 0, cache_read: 0 } } },
    ]);
    expect(w.state().tokens).toEqual({ total: 120, by_agent: { b: 120 } });
    await w.budget.run();
    expect(w.amended).toHaveLength(1);
  });

  it('without a transcript path or a prompt id there is nothing to count', async () => {
    const w = world();
    for (const [path, prompt] of [
      [undefined, 'p1'],
      ['', 'p1'],
      ['/t/b.jsonl', ''],
      ['/t/b.jsonl', 42],
      [42, 'p1'],
      [null, null],
    ])
      w.budget.ended('b', path, prompt);
    await w.budget.run();
    expect(w.wakes).toEqual([]);
    expect(w.opened).toEqual([]);
  });

  it('adds to the totals each agent has already', async () => {
    const w = world({ state: { tokens: { total: 1000, by_agent: { a: 600, b: 400 } } } });
    w.transcripts.set('/t/a.jsonl', turn('p1', [30, 20], true));
    w.budget.ended('a', '/t/a.jsonl', 'p1');
    await w.budget.run();
    expect(w.state().tokens).toEqual({ total: 1050, by_agent: { a: 650, b: 400 } });
  });

  it('a prompt that was no message of baton’s still counts in the totals, on no message', async () => {
    const w = world();
    w.transcripts.set('/t/b.jsonl', turn('typed-by-hand', [5, 5], true));
    w.budget.ended('b', '/t/b.jsonl', 'typed-by-hand');
    await w.budget.run();
    expect(w.amended).toEqual([]);
    expect(w.state().tokens).toEqual({ total: 10, by_agent: { b: 10 } });
  });
});

describe('a turn its transcript does not hold whole yet', () => {
  it('is looked at again shortly while its record is not complete, then counted as it is', async () => {
    const w = world();
    w.transcripts.set('/t/b.jsonl', turn('p1', [10, 10], false));
    w.budget.ended('b', '/t/b.jsonl', 'p1');
    await w.budget.run();
    expect(w.wakes).toEqual([200, 100]);
    expect(w.amended).toEqual([]);
    now += COMPLETE_WAIT_MS;
    await w.budget.run();
    expect(w.state().tokens?.total).toBe(20);
  });

  it('is counted as soon as the record completes', async () => {
    const w = world();
    const lines = turn('p1', [10, 10], false);
    w.transcripts.set('/t/b.jsonl', lines);
    w.budget.ended('b', '/t/b.jsonl', 'p1');
    await w.budget.run();
    lines.push({ type: 'system', subtype: 'turn_duration', uuid: 'd', parentUuid: 'a-p1' });
    now += 50;
    await w.budget.run();
    expect(w.state().tokens?.total).toBe(20);
  });

  it('a prompt not in the transcript is waited for, then left uncounted with a warning', async () => {
    const w = world();
    w.budget.ended('b', '/t/b.jsonl', 'p1');
    await w.budget.run();
    now += GIVE_UP_MS - 1;
    await w.budget.run();
    expect(w.wakes).toEqual([200, 250, 250]);
    expect(w.lines).toEqual([]);
    now += 1;
    await w.budget.run();
    // Neither the prompt's ID nor the path (both from the agent's own note) reaches the log.
    expect(w.lines).toEqual(["warn: b's turn is not in its transcript: its tokens are not counted"]);
    w.transcripts.set('/t/b.jsonl', turn('p1', [10, 10], true));
    await w.budget.run();
    expect(w.amended).toEqual([]);
    expect(w.state().tokens).toBeUndefined();
  });
});

describe('a transcript that is not read', () => {
  it("(not a regular file, not under its client's folders): the turn is dropped at once, with the reason", async () => {
    const w = world();
    w.refused.set('/t/fifo', 'not a regular file (a FIFO)');
    w.budget.ended('b', '/t/fifo', 'p1');
    await w.budget.run();
    expect(w.lines).toEqual([
      "warn: b's transcript is not read (not a regular file (a FIFO)): the turn's tokens are not counted",
    ]);
    await w.budget.run();
    expect(w.lines).toHaveLength(1);
    expect(w.wakes).toEqual([200]);
    expect(w.state().tokens).toBeUndefined();
  });
});

describe('transcripts', () => {
  it('one reader per transcript while its turns wait, a new one once none does', async () => {
    const w = world();
    w.transcripts.set('/t/b.jsonl', [...turn('p1', [1, 1], false), ...turn('p2', [2, 2], true)]);
    w.budget.ended('b', '/t/b.jsonl', 'p1');
    w.budget.ended('b', '/t/b.jsonl', 'p2');
    await w.budget.run();
    await w.budget.run();
    expect(w.opened).toEqual(['/t/b.jsonl']);
    now += COMPLETE_WAIT_MS;
    await w.budget.run();
    w.budget.ended('b', '/t/b.jsonl', 'p3');
    await w.budget.run();
    expect(w.opened).toEqual(['/t/b.jsonl', '/t/b.jsonl']);
  });
});

describe('turns.max_tokens', () => {
  it('ends the conversation once the total reaches it, not before', async () => {
    const w = world({ maxTokens: 100 });
    w.transcripts.set('/t/b.jsonl', [...turn('p1', [40, 19], true), ...turn('p2', [30, 11], true)]);
    w.budget.ended('b', '/t/b.jsonl', 'p1');
    await w.budget.run();
    expect(w.finished).toEqual([]);
    w.budget.ended('b', '/t/b.jsonl', 'p2');
    await w.budget.run();
    expect(w.state().tokens?.total).toBe(100);
    expect(w.finished).toEqual(['max_tokens']);
  });

  it('a conversation that has finished is not ended again; no limit ends none', async () => {
    const w = world({ maxTokens: 10, state: { finished: { reason: 'ended', at: 'earlier' } } });
    w.transcripts.set('/t/b.jsonl', turn('p1', [40, 40], true));
    w.budget.ended('b', '/t/b.jsonl', 'p1');
    await w.budget.run();
    expect(w.finished).toEqual([]);
    const v = world({ maxTokens: 0 });
    v.transcripts.set('/t/b.jsonl', turn('p1', [4000, 4000], true));
    v.budget.ended('b', '/t/b.jsonl', 'p1');
    await v.budget.run();
    expect(v.finished).toEqual([]);
  });
});
