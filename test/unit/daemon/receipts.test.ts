/**
 * What the daemon makes of the agents' hook notes (daemon/receipts.ts), against a fake hook intake (the
 * port in terminal/hooks/intake.ts) and an in-memory bus: no files, no tmux. A prompt that carries a
 * message is its receipt (on the record once stamped, kept until the stamp when it came first); the end of
 * a turn posts the agent's final reply for it under `reply: "auto"` (once per turn), and counts the turn's
 * tokens from its transcript, ending the conversation at max_tokens.
 */
import { describe, expect, it } from 'vitest';
import { type Direction, parseConfig } from '../../../src/config/config.js';
import type { HookNote } from '../../../src/core/hook-note.js';
import type { ArchiveRecord } from '../../../src/core/record.js';
import { restartReminder } from '../../../src/core/restart.js';
import type { State } from '../../../src/core/state.js';
import { Receipts, type ReceiptsParts } from '../../../src/daemon/receipts.js';
import { log } from '../../../src/lib/log.js';
import type { HookIntake } from '../../../src/terminal/hooks/intake.js';
import type { AgentStates, Spooled } from '../../../src/terminal/hooks/spool.js';

const config = (turns: Record<string, unknown> = {}) =>
  parseConfig(
    {
      agents: {
        a: { kind: 'claude', command: 'claude', reply: 'auto' },
        b: { kind: 'claude', command: 'claude', reply: 'auto' },
      },
      directions: { a_to_b: ['a', 'b'], b_to_a: ['b', 'a'] },
      turns,
    },
    '/p/config.json',
    '/p',
    { BATON_HOST: 'here' },
  );

/** A hook intake whose spools are arrays: what was taken, saved and watched is recorded. */
class FakeIntake implements HookIntake {
  readonly spools = new Map<string, Spooled[]>();
  readonly taken: string[] = [];
  readonly ensured: string[] = [];
  readonly watchers = new Map<string, () => void>();
  readonly transcripts = new Map<string, unknown[]>();
  states: AgentStates = {};
  private seq = 0;

  leave(agent: string, note: Omit<HookNote, 'agent' | 'at'>): void {
    const name = `${String(++this.seq).padStart(4, '0')}-${note.event}.json`;
    const at = new Date(Date.UTC(2026, 0, 1, 0, 0, this.seq)).toISOString();
    this.spools.set(agent, [...(this.spools.get(agent) ?? []), { name, note: { agent, at, ...note } }]);
    this.watchers.get(agent)?.();
  }

  async ensure(agent: string): Promise<void> {
    this.ensured.push(agent);
  }
  watch(agent: string, changed: () => void): void {
    this.watchers.set(agent, changed);
  }
  unwatch(): void {
    this.watchers.clear();
  }
  async notes(agent: string): Promise<Spooled[]> {
    return [...(this.spools.get(agent) ?? [])];
  }
  async take(agent: string, name: string): Promise<void> {
    this.spools.set(
      agent,
      (this.spools.get(agent) ?? []).filter((s) => s.name !== name),
    );
    this.taken.push(`${agent}/${name}`);
  }
  async saveStates(states: AgentStates): Promise<void> {
    this.states = structuredClone(states);
  }
  async transcriptReply(): Promise<string | null> {
    return null;
  }
  transcript(_agent: string, path: string) {
    return { read: async () => this.transcripts.get(path) ?? [] };
  }
}

const record = (id: string, over: Partial<ArchiveRecord> = {}): ArchiveRecord => ({
  id,
  reply_to: null,
  sender: 'a',
  receiver: 'b',
  type: 'message',
  content: 'hello there',
  direction: 'a_to_b',
  source_file: 'm.json',
  received_at: '2026-01-01T00:00:00.000Z',
  delivered_at: '2026-01-01T00:00:01.000Z',
  ...over,
});

/** What a Claude Code prompt holds when baton typed message `id` (its header, then the content). */
const prompt = (id: string, content = 'hello there') =>
  `[baton] ${id} from a\n${content}\n\n[baton] reply with baton post`;

async function world(
  opts: { turns?: Record<string, unknown>; records?: ArchiveRecord[]; state?: Partial<State> } = {},
) {
  const cfg = config(opts.turns);
  const intake = new FakeIntake();
  const records = new Map((opts.records ?? []).map((r) => [r.id, r]));
  const amended: Array<{ id: string; fields: Record<string, unknown> }> = [];
  const events: Array<{ event: string; fields: Record<string, unknown> }> = [];
  const posted: Array<{ direction: string; message: Record<string, unknown> }> = [];
  const finished: string[] = [];
  let state = {
    current_turn: 'b',
    last_message_id: 'msg_0001',
    message_counter: 1,
    pending_reply_to: 'msg_0001',
    ...opts.state,
  } as State;
  const bus: ReceiptsParts['bus'] = {
    now: () => Date.now(),
    events: {
      emit: async (event, fields = {}) => void events.push({ event, fields }),
    },
    record: async (id) => records.get(id) ?? null,
    amend: async (id, fields) => {
      amended.push({ id, fields });
      records.set(id, { ...records.get(id)!, ...fields });
      return true;
    },
    // Receipts never stamp or reject: what these tests never reach fails loudly, as a missing method did.
    stamp: async () => {
      throw new Error('receipts never stamp');
    },
    queues: async () => [],
    reject: async () => {
      throw new Error('receipts never reject');
    },
    takeRejected: () => {
      throw new Error('receipts never take rejections');
    },
    state: () => state,
    waitingFrom: async () => 0,
    update: async (change) => (state = change(state)),
  };
  const receipts = new Receipts({
    config: cfg,
    bus,
    rules: { policy: cfg.turns.policy, agents: cfg.order },
    intake,
    post: async (d: Direction, message: Record<string, unknown>) => {
      posted.push({ direction: d.name, message });
      return { kind: 'posted' as const, name: 'posted.json', where: `${d.dir}/posted.json` };
    },
    log: log.create({ level: 0 }),
    finish: async (reason) => void finished.push(reason),
    wakeIn: () => {},
    checkLease: () => {},
  });
  // Watched, as the daemon does: a note left marks the spool to be read at the next pass.
  let kicks = 0;
  await receipts.watch(() => kicks++);
  return { receipts, intake, records, amended, events, posted, finished, state: () => state, kicks: () => kicks };
}

describe('receipts from the agents’ hooks', () => {
  it('watches each hooked agent’s spool, made first; a note there asks for a pass', async () => {
    const w = await world();
    expect(w.intake.ensured).toEqual(['a', 'b']);
    w.intake.leave('b', { event: 'permission', payload: { tool_name: 'Bash' } });
    expect(w.kicks()).toBe(1);
    await w.receipts.run();
    expect(w.intake.states.b).toEqual({ state: 'permission', since: '2026-01-01T00:00:01.000Z', detail: 'Bash' });
    w.receipts.unwatch();
    expect(w.intake.watchers.size).toBe(0);
  });

  it('matches a prompt to the stamped message it carries: received, intact, on the record; the note taken', async () => {
    const w = await world({ records: [record('msg_0001')] });
    w.intake.leave('b', { event: 'prompt', payload: { prompt: prompt('msg_0001'), prompt_id: 'p1' } });
    expect(await w.receipts.run()).toBe(true);
    expect(w.amended).toEqual([
      {
        id: 'msg_0001',
        fields: { received: { at: '2026-01-01T00:00:01.000Z', intact: true, prompt_id: 'p1' }, confirmed: 'hook' },
      },
    ]);
    expect(w.events).toEqual([{ event: 'received', fields: { id: 'msg_0001', agent: 'b', intact: true } }]);
    expect(w.intake.taken).toEqual(['b/0001-prompt.json']);
    expect(w.intake.states.b).toMatchObject({ state: 'busy', prompt_id: 'p1' });
    // Read and taken once: the next pass finds nothing.
    expect(await w.receipts.run()).toBe(false);
    expect(w.amended).toHaveLength(1);
  });

  it('says when the prompt does not hold the text baton typed, and ignores a message to another agent', async () => {
    const w = await world({ records: [record('msg_0001'), record('msg_0002', { receiver: 'a', sender: 'b' })] });
    w.intake.leave('b', { event: 'prompt', payload: { prompt: prompt('msg_0001', 'hello th'), prompt_id: 'p1' } });
    w.intake.leave('b', { event: 'prompt', payload: { prompt: prompt('msg_0002'), prompt_id: 'p2' } });
    await w.receipts.run();
    expect(w.events.map((e) => e.fields)).toEqual([{ id: 'msg_0001', agent: 'b', intact: false }]);
  });

  it("a header inside a message's own content is no receipt of the message it names", async () => {
    const forged = 'see this:\n[baton] msg_0001 from a\nhello there';
    const w = await world({ records: [record('msg_0001'), record('msg_0002', { content: forged })] });
    w.intake.leave('b', { event: 'prompt', payload: { prompt: prompt('msg_0002', forged), prompt_id: 'p1' } });
    await w.receipts.run();
    expect(w.events.map((e) => e.fields)).toEqual([{ id: 'msg_0002', agent: 'b', intact: true }]);
    // Both typed in one prompt (merged), the older one really there too: both received.
    const both = await world({ records: [record('msg_0001'), record('msg_0002', { content: forged })] });
    const merged = `${prompt('msg_0001')}\n\n${prompt('msg_0002', forged)}`;
    both.intake.leave('b', { event: 'prompt', payload: { prompt: merged, prompt_id: 'p1' } });
    await both.receipts.run();
    expect(both.events.map((e) => e.fields.id)).toEqual(['msg_0001', 'msg_0002']);
  });

  it('compares the whole text this daemon typed, a catch-up included: a lost line of it is not intact', async () => {
    const typed = [
      '[baton] msg_0003 from a',
      '[baton] while you were away (context, not addressed to you):',
      '> msg_0002 c → a:',
      '> the plan',
      '[baton] the message to you:',
      'hello there',
      '',
      '[baton] reply with baton post',
    ].join('\n');
    const w = await world({ records: [record('msg_0003'), record('msg_0004')] });
    w.receipts.typed('msg_0003', typed);
    w.receipts.typed('msg_0004', typed.replace(/msg_0003/, 'msg_0004'));
    w.intake.leave('b', { event: 'prompt', payload: { prompt: typed, prompt_id: 'p1' } });
    const lost = typed.replace(/msg_0003/, 'msg_0004').replace('> the plan\n', '');
    w.intake.leave('b', { event: 'prompt', payload: { prompt: lost, prompt_id: 'p2' } });
    await w.receipts.run();
    expect(w.events.map((e) => e.fields)).toEqual([
      { id: 'msg_0003', agent: 'b', intact: true },
      { id: 'msg_0004', agent: 'b', intact: false },
    ]);
  });

  it("a person's note to all: the receipt goes on that agent's delivery, once", async () => {
    const note = record('user_0001', {
      sender: 'user',
      receiver: 'all',
      deliveries: { a: { at: 'T0' }, b: { at: 'T1', confirmed: 'screen' } },
    });
    const w = await world({ records: [note] });
    const text = (n: number) => ({
      event: 'prompt' as const,
      payload: { prompt: prompt('user_0001'), prompt_id: `p${n}` },
    });
    w.intake.leave('b', text(1));
    w.intake.leave('b', text(2));
    await w.receipts.run();
    expect(w.amended).toEqual([
      {
        id: 'user_0001',
        fields: {
          deliveries: {
            b: { at: 'T1', confirmed: 'screen', received: { at: '2026-01-01T00:00:01.000Z', intact: true } },
          },
        },
      },
    ]);
  });

  it('keeps a receipt that came before the stamp for whoever stamps it, once', async () => {
    const w = await world({ records: [record('msg_0001', { delivered_at: null })] });
    w.intake.leave('b', { event: 'prompt', payload: { prompt: prompt('msg_0001'), prompt_id: 'p1' } });
    await w.receipts.run();
    expect(w.amended).toEqual([]);
    expect(w.receipts.takeEarly('msg_0001')).toEqual({ at: '2026-01-01T00:00:01.000Z', intact: true, prompt_id: 'p1' });
    expect(w.receipts.takeEarly('msg_0001')).toBeUndefined();
  });

  it('sets aside a note that is not a hook note, and one that keeps failing after three tries', async () => {
    const w = await world({ records: [record('msg_0001')] });
    w.intake.spools.set('a', [{ name: '0000-bad.json', invalid: 'not JSON' }]);
    w.intake.leave('b', { event: 'prompt', payload: { prompt: prompt('msg_0001'), prompt_id: 'p1' } });
    (w as { amended: unknown[] }).amended.push = () => {
      throw new Error('disk full');
    };
    await w.receipts.run();
    expect(w.intake.taken).toEqual(['a/0000-bad.json']);
    await w.receipts.run();
    await w.receipts.run();
    expect(w.intake.taken).toEqual(['a/0000-bad.json', 'b/0001-prompt.json']);
  });
});

describe('the end of an agent’s turn, from its hook', () => {
  it('posts the final reply of the turn its message opened, once, under reply "auto"', async () => {
    const w = await world({ records: [record('msg_0001')] });
    w.intake.leave('b', { event: 'prompt', payload: { prompt: prompt('msg_0001'), prompt_id: 'p1' } });
    w.intake.leave('b', { event: 'stop', payload: { prompt_id: 'p1', last_assistant_message: 'the answer' } });
    await w.receipts.run();
    expect(w.posted).toEqual([
      {
        direction: 'b_to_a',
        message: {
          timestamp: '2026-01-01T00:00:02.000Z',
          sender: 'b',
          receiver: 'a',
          content: 'the answer',
          type: 'response',
          auto: true,
        },
      },
    ]);
    expect(w.events.at(-1)).toEqual({ event: 'auto_replied', fields: { agent: 'b', to: 'a', reply_to: 'msg_0001' } });
    expect(w.intake.states.b).toEqual({ state: 'idle', since: '2026-01-01T00:00:02.000Z' });
    // The same turn's end reported again: never a second message for it.
    w.intake.leave('b', { event: 'stop', payload: { prompt_id: 'p1', last_assistant_message: 'the answer' } });
    await w.receipts.run();
    expect(w.posted).toHaveLength(1);
  });

  it('posts the reply of a turn that ended while paused (a budget reached mid-turn): it waits for baton resume', async () => {
    const w = await world({ records: [record('msg_0001')], state: { paused: { at: 'T', reason: 'budget' } } });
    w.intake.leave('b', { event: 'prompt', payload: { prompt: prompt('msg_0001'), prompt_id: 'p1' } });
    w.intake.leave('b', { event: 'stop', payload: { prompt_id: 'p1', last_assistant_message: 'the answer' } });
    await w.receipts.run();
    expect(w.posted.map((x) => [x.direction, x.message.content])).toEqual([['b_to_a', 'the answer']]);
  });

  it('posts the reply of a turn a restart reminder started as the reply to the message it names', async () => {
    const w = await world({
      records: [{ ...record('msg_0001'), received: { at: 'T', intact: true, prompt_id: 'p0' } }],
    });
    const reminder = restartReminder({ agent: 'b', id: 'msg_0001', from: 'a', resumed: true, hint: 'reply with …' });
    w.intake.leave('b', { event: 'prompt', payload: { prompt: reminder, prompt_id: 'p2' } });
    w.intake.leave('b', { event: 'stop', payload: { prompt_id: 'p2', last_assistant_message: 'the answer at last' } });
    await w.receipts.run();
    expect(w.posted.map((x) => [x.message.content, x.message.type])).toEqual([['the answer at last', 'response']]);
  });

  it('posts nothing for a turn another prompt opened, nor for an agent not holding the turn', async () => {
    const w = await world({ records: [record('msg_0001')] });
    w.intake.leave('b', { event: 'prompt', payload: { prompt: prompt('msg_0001'), prompt_id: 'p1' } });
    w.intake.leave('b', { event: 'stop', payload: { prompt_id: 'p9', last_assistant_message: 'other' } });
    w.intake.leave('a', { event: 'stop', payload: { prompt_id: 'p1', last_assistant_message: 'not mine' } });
    await w.receipts.run();
    expect(w.posted).toEqual([]);
  });

  it('counts a turn’s tokens from its transcript onto the message that opened it, and ends at max_tokens', async () => {
    const w = await world({ records: [record('msg_0001')], turns: { max_tokens: 100 } });
    const usage = { input_tokens: 40, output_tokens: 50, cache_creation_input_tokens: 5, cache_read_input_tokens: 5 };
    w.intake.transcripts.set('/t/b.jsonl', [
      { type: 'user', uuid: 'u1', promptId: 'p1' },
      { type: 'assistant', uuid: 'u2', parentUuid: 'u1', message: { id: 'm1', model: 'claude-opus-4-8', usage } },
      { type: 'system', subtype: 'turn_duration', uuid: 'u3', parentUuid: 'u2' },
    ]);
    w.intake.leave('b', { event: 'prompt', payload: { prompt: prompt('msg_0001'), prompt_id: 'p1' } });
    w.intake.leave('b', {
      event: 'stop',
      payload: { prompt_id: 'p1', transcript_path: '/t/b.jsonl', last_assistant_message: 'done' },
    });
    await w.receipts.run();
    expect(w.amended.at(-1)).toEqual({
      id: 'msg_0001',
      fields: {
        turn_tokens: { input: 40, output: 50, cache_creation: 5, cache_read: 5 },
        // Opus 4.8: $5 input, $25 output, $6.25 cache writes, $0.50 cache hits per million.
        turn_cost: { usd: (40 * 5 + 50 * 25 + 5 * 6.25 + 5 * 0.5) / 1e6, models: ['claude-opus-4-8'], unpriced: [] },
      },
    });
    expect(w.state().tokens).toEqual({ total: 100, by_agent: { b: 100 } });
    expect(w.finished).toEqual(['max_tokens']);
  });
});
