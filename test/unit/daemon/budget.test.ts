/**
 * daemon/budget.ts: a turn's tokens counted once its transcript has them — waited for while the turn's
 * record is not complete (up to COMPLETE_WAIT_MS) or the prompt is not there at all (up to GIVE_UP_MS) —
 * then put on the message that opened the turn and into the state's totals, ending the conversation at
 * turns.max_tokens. Against an in-memory transcript and state, with performance.now() as a clock the test moves.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { parseConfig } from '../../../src/config/config.js';
import type { FinishReason } from '../../../src/core/conversation.js';
import type { Amendment, ArchiveRecord } from '../../../src/core/record.js';
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
    message: { id: `m-${promptId}`, model: 'claude-opus-4-8', usage: usage(...tokens) },
  },
  ...(done ? [{ type: 'system', subtype: 'turn_duration', uuid: `d-${promptId}`, parentUuid: `a-${promptId}` }] : []),
];

function world(
  opts: {
    maxTokens?: number;
    maxCost?: number;
    agentMax?: number;
    kinds?: [string, string];
    pricing?: Record<string, unknown>;
    state?: Partial<State>;
  } = {},
) {
  const [ka, kb] = opts.kinds ?? ['claude', 'claude'];
  const config = parseConfig(
    {
      agents: {
        a: { kind: ka, command: ka },
        b: { kind: kb, command: kb, ...(opts.agentMax ? { max_cost_usd: opts.agentMax } : {}) },
      },
      directions: { a_to_b: ['a', 'b'], b_to_a: ['b', 'a'] },
      turns: { max_tokens: opts.maxTokens ?? 0, max_cost_usd: opts.maxCost ?? 0 },
      ...(opts.pricing ? { pricing: opts.pricing } : {}),
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
  const events: Array<{ event: string; fields: Record<string, unknown> }> = [];
  const records = new Map<string, Amendment>();
  const bus = fakeDeliveryBus({
    amend: async (id, fields) => {
      amended.push({ id, fields });
      records.set(id, { ...records.get(id), ...fields });
      return true;
    },
    record: async (id) => (records.has(id) ? ({ id, ...records.get(id) } as unknown as ArchiveRecord) : null),
    update: async (change) => (state = change(state)),
    now: () => Date.parse('2026-11-28T12:00:00Z'),
    events: { emit: async (event, fields = {}) => void events.push({ event, fields }) },
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
    finish: async (reason) => {
      finished.push(reason);
      state = { ...state, finished: { reason, at: 'now' } };
    },
    wakeIn: (ms) => void wakes.push(ms),
  });
  /** A Claude Code turn ended: the message that opened it is named by its prompt id (a `p…` one is baton's). */
  const end = (agent: string, path: unknown, promptId: unknown) =>
    budget.ended(agent, {
      kind: 'claude',
      transcript: path,
      turn: promptId,
      opened: typeof promptId === 'string' && promptId.startsWith('p') ? `msg_for_${agent}_${promptId}` : null,
    });
  const setState = (s: Partial<State>) => void (state = { ...state, ...s });
  return {
    budget,
    end,
    transcripts,
    refused,
    amended,
    finished,
    wakes,
    opened,
    lines,
    events,
    setState,
    state: () => state,
  };
}

describe('a turn that ended', () => {
  it('is looked at soon, and counted once its transcript has the whole turn', async () => {
    const w = world();
    w.transcripts.set('/t/b.jsonl', turn('p1', [100, 20], true));
    w.end('b', '/t/b.jsonl', 'p1');
    expect(w.wakes).toEqual([200]);
    await w.budget.run();
    expect(w.amended).toEqual([
      {
        id: 'msg_for_b_p1',
        fields: {
          turn_tokens: { input: 100, output: 20, cache_creation: 0, cache_read: 0 },
          turn_cost: { usd: (100 * 5 + 20 * 25) / 1e6, models: ['claude-opus-4-8'], unpriced: [] },
        },
      },
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
      w.end('b', path, prompt);
    await w.budget.run();
    expect(w.wakes).toEqual([]);
    expect(w.opened).toEqual([]);
  });

  it('adds to the totals each agent has already', async () => {
    const w = world({ state: { tokens: { total: 1000, by_agent: { a: 600, b: 400 } } } });
    w.transcripts.set('/t/a.jsonl', turn('p1', [30, 20], true));
    w.end('a', '/t/a.jsonl', 'p1');
    await w.budget.run();
    expect(w.state().tokens).toEqual({ total: 1050, by_agent: { a: 650, b: 400 } });
  });

  it('a prompt that was no message of baton’s still counts in the totals, on no message', async () => {
    const w = world();
    w.transcripts.set('/t/b.jsonl', turn('typed-by-hand', [5, 5], true));
    w.end('b', '/t/b.jsonl', 'typed-by-hand');
    await w.budget.run();
    expect(w.amended).toEqual([]);
    expect(w.state().tokens).toEqual({ total: 10, by_agent: { b: 10 } });
  });
});

describe('a turn its transcript does not hold whole yet', () => {
  it('is looked at again shortly while its record is not complete, then counted as it is', async () => {
    const w = world();
    w.transcripts.set('/t/b.jsonl', turn('p1', [10, 10], false));
    w.end('b', '/t/b.jsonl', 'p1');
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
    w.end('b', '/t/b.jsonl', 'p1');
    await w.budget.run();
    lines.push({ type: 'system', subtype: 'turn_duration', uuid: 'd', parentUuid: 'a-p1' });
    now += 50;
    await w.budget.run();
    expect(w.state().tokens?.total).toBe(20);
  });

  it('a prompt not in the transcript is waited for, then left uncounted with a warning', async () => {
    const w = world();
    w.end('b', '/t/b.jsonl', 'p1');
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
    w.end('b', '/t/fifo', 'p1');
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
    w.end('b', '/t/b.jsonl', 'p1');
    w.end('b', '/t/b.jsonl', 'p2');
    await w.budget.run();
    await w.budget.run();
    expect(w.opened).toEqual(['/t/b.jsonl']);
    now += COMPLETE_WAIT_MS;
    await w.budget.run();
    w.end('b', '/t/b.jsonl', 'p3');
    await w.budget.run();
    expect(w.opened).toEqual(['/t/b.jsonl', '/t/b.jsonl']);
  });
});

describe('turns.max_tokens', () => {
  it('ends the conversation once the total reaches it, not before', async () => {
    const w = world({ maxTokens: 100 });
    w.transcripts.set('/t/b.jsonl', [...turn('p1', [40, 19], true), ...turn('p2', [30, 11], true)]);
    w.end('b', '/t/b.jsonl', 'p1');
    await w.budget.run();
    expect(w.finished).toEqual([]);
    w.end('b', '/t/b.jsonl', 'p2');
    await w.budget.run();
    expect(w.state().tokens?.total).toBe(100);
    expect(w.finished).toEqual(['max_tokens']);
  });

  it('a conversation that has finished is not ended again; no limit ends none', async () => {
    const w = world({ maxTokens: 10, state: { finished: { reason: 'ended', at: 'earlier' } } });
    w.transcripts.set('/t/b.jsonl', turn('p1', [40, 40], true));
    w.end('b', '/t/b.jsonl', 'p1');
    await w.budget.run();
    expect(w.finished).toEqual([]);
    const v = world({ maxTokens: 0 });
    v.transcripts.set('/t/b.jsonl', turn('p1', [4000, 4000], true));
    v.end('b', '/t/b.jsonl', 'p1');
    await v.budget.run();
    expect(v.finished).toEqual([]);
  });
});

describe('cost budgets', () => {
  /** Opus 4.8 at $5 / $25 per million: a turn of 100 000 in and 20 000 out costs $1.00. */
  const dollarTurn = (p: string) => turn(p, [100_000, 20_000], true);

  it("a turn's cost goes on its message and into the state's sums, per agent and in all", async () => {
    const w = world();
    w.transcripts.set('/t/b.jsonl', dollarTurn('p1'));
    w.end('b', '/t/b.jsonl', 'p1');
    await w.budget.run();
    expect(w.state().cost).toEqual({ usd: 1, by_agent: { b: 1 } });
    expect(w.amended[0]!.fields.turn_cost).toEqual({ usd: 1, models: ['claude-opus-4-8'], unpriced: [] });
  });

  it('a message that opened two turns (its agent started again, reminded of it) has both on its record', async () => {
    const w = world();
    w.transcripts.set('/t/b.jsonl', dollarTurn('p1'));
    w.end('b', '/t/b.jsonl', 'p1');
    await w.budget.run();
    w.transcripts.set('/t/b2.jsonl', dollarTurn('p1'));
    w.end('b', '/t/b2.jsonl', 'p1');
    await w.budget.run();
    expect(w.amended).toHaveLength(2);
    expect(w.amended[1]!.fields.turn_cost).toEqual({ usd: 2, models: ['claude-opus-4-8'], unpriced: [] });
    expect(w.amended[1]!.fields.turn_tokens).toMatchObject({ input: 200_000, output: 40_000 });
    expect(w.state().cost).toEqual({ usd: 2, by_agent: { b: 2 } });
  });

  it('reaching turns.max_cost_usd pauses the conversation (never ends it) and emits a budget event', async () => {
    const w = world({ maxCost: 1.5 });
    w.transcripts.set('/t/b.jsonl', [...dollarTurn('p1'), ...dollarTurn('p2')]);
    w.end('b', '/t/b.jsonl', 'p1');
    await w.budget.run();
    expect(w.state().paused).toBeUndefined();
    w.end('b', '/t/b.jsonl', 'p2');
    await w.budget.run();
    expect(w.finished).toEqual([]);
    expect(w.state().paused).toEqual({
      at: '2026-11-28T12:00:00.000Z',
      reason: 'budget',
      budget: 'turns.max_cost_usd',
      spent_usd: 2,
      max_usd: 1.5,
    });
    expect(w.events).toEqual([
      { event: 'budget', fields: { budget: 'turns.max_cost_usd', spent_usd: 2, max_usd: 1.5 } },
    ]);
  });

  it("an agent's own budget pauses it too, naming the agent", async () => {
    const w = world({ agentMax: 0.5 });
    w.transcripts.set('/t/b.jsonl', dollarTurn('p1'));
    w.end('b', '/t/b.jsonl', 'p1');
    await w.budget.run();
    expect(w.state().paused).toMatchObject({ reason: 'budget', budget: 'agents.b.max_cost_usd', max_usd: 0.5 });
    expect(w.events[0]!.fields).toMatchObject({ agent: 'b', spent_usd: 1 });
  });

  it('after a resume the spent budget pauses again only at the next turn that costs (not on its own)', async () => {
    const w = world({ maxCost: 0.5 });
    w.transcripts.set('/t/b.jsonl', [...dollarTurn('p1'), ...turn('p2', [0, 0], true), ...dollarTurn('p3')]);
    w.end('b', '/t/b.jsonl', 'p1');
    await w.budget.run();
    expect(w.state().paused).toBeTruthy();
    w.setState({ paused: null }); // baton resume
    w.end('b', '/t/b.jsonl', 'p2'); // a turn that cost nothing
    await w.budget.run();
    expect(w.state().paused).toBeNull();
    w.end('b', '/t/b.jsonl', 'p3');
    await w.budget.run();
    expect(w.state().paused).toMatchObject({ reason: 'budget', spent_usd: 2 });
    expect(w.events.filter((e) => e.event === 'budget')).toHaveLength(2);
  });

  it('a budget raised by resume --budget is the one in force', async () => {
    const w = world({ maxCost: 0.5, state: { raised: { 'turns.max_cost_usd': 3 } } });
    w.transcripts.set('/t/b.jsonl', [...dollarTurn('p1'), ...dollarTurn('p2')]);
    w.end('b', '/t/b.jsonl', 'p1');
    w.end('b', '/t/b.jsonl', 'p2');
    await w.budget.run();
    expect(w.state().paused).toBeUndefined();
  });

  it('a model with no price: tokens counted, no cost, said once; pricing in config.json gives it one', async () => {
    const w = world({ maxCost: 0.01 });
    const unknown = (p: string) =>
      turn(p, [100_000, 20_000], true).map((e) =>
        e.type === 'assistant' ? { ...e, message: { ...e.message, model: 'claude-future-9' } } : e,
      );
    w.transcripts.set('/t/b.jsonl', [...unknown('p1'), ...unknown('p2')]);
    w.end('b', '/t/b.jsonl', 'p1');
    w.end('b', '/t/b.jsonl', 'p2');
    await w.budget.run();
    expect(w.state().tokens?.total).toBe(240_000);
    expect(w.state().cost).toEqual({ usd: 0, by_agent: { b: 0 }, unpriced: ['claude-future-9'] });
    expect(w.state().paused).toBeUndefined();
    expect(w.lines.filter((l) => l.includes('no price for model claude-future-9'))).toHaveLength(1);
    const v = world({ pricing: { 'claude-future-9': { input: 10, output: 50 } } });
    v.transcripts.set('/t/b.jsonl', unknown('p1'));
    v.end('b', '/t/b.jsonl', 'p1');
    await v.budget.run();
    expect(v.state().cost?.usd).toBe(2);
  });

  it('Codex and Gemini turns are read from their own records', async () => {
    const w = world({ kinds: ['codex', 'gemini'] });
    const codexLog = [
      { type: 'turn_context', payload: { turn_id: 't1', model: 'gpt-6.1-sol' } },
      {
        type: 'token_usage_record',
        payload: {
          turn_id: 't1',
          turn_token_usage: { input_tokens: 1_000_000, cached_input_tokens: 0, output_tokens: 0 },
        },
      },
      { type: 'event_msg', payload: { type: 'task_complete', turn_id: 't1' } },
    ];
    const chat = [
      { id: 'u1', type: 'user', content: [{ text: 'the prompt' }] },
      { id: 'g1', type: 'gemini', content: 'done', model: 'gemini-3.8-flash', tokens: { input: 0, output: 1_000_000 } },
    ];
    w.transcripts.set('/t/a.jsonl', codexLog);
    w.transcripts.set('/t/b.jsonl', chat);
    w.budget.ended('a', {
      kind: 'codex',
      transcript: '/t/a.jsonl',
      turn: 't1',
      model: 'gpt-6.1-sol',
      opened: 'msg_0001',
    });
    w.budget.ended('b', { kind: 'gemini', transcript: '/t/b.jsonl', turn: 'the prompt', opened: 'msg_0002' });
    await w.budget.run();
    expect(w.state().cost).toEqual({ usd: 2 + 3.75, by_agent: { a: 2, b: 3.75 } });
    expect(w.amended.map((x) => x.id)).toEqual(['msg_0001', 'msg_0002']);
  });
});
