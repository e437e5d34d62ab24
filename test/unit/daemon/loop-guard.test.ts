/**
 * daemon/loop-guard.ts against an in-memory archive and state: it pauses with the window as evidence and
 * `loop_since` past it, never acts on a finished or paused conversation or with the
 * guard off, and forgets what it read when the conversation is started anew under it (IDs numbered again).
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/config.js';
import { formatId } from '../../../src/core/ids.js';
import type { ArchiveRecord } from '../../../src/core/record.js';
import type { State } from '../../../src/core/state.js';
import { LoopGuard } from '../../../src/daemon/loop-guard.js';
import { log } from '../../../src/lib/log.js';
import { fakeDeliveryBus } from './fake-delivery-bus.js';

const THANKS = ['Thanks a lot!', "You're welcome, glad it helped.", 'Thank you again!', 'Cheers, take care!'];

function world(guard: unknown = true) {
  const config = parseConfig(
    {
      agents: { a: { kind: 'generic', command: 'x' }, b: { kind: 'generic', command: 'x' } },
      turns: { loop_guard: guard },
    },
    null,
    '/tmp',
  );
  const archive = new Map<string, ArchiveRecord>();
  let state: State = {
    current_turn: 'a',
    last_message_id: null,
    message_counter: 0,
    pending_reply_to: null,
    started_at: '2026-11-28T11:00:00.000Z',
  };
  const reads: string[] = [];
  const events: Array<[string, unknown]> = [];
  const bus = fakeDeliveryBus({
    state: () => state,
    update: async (f) => (state = f(state)),
    record: async (id) => {
      reads.push(id);
      return archive.get(id) ?? null;
    },
    events: { emit: async (e, f) => void events.push([e, f]) },
    now: () => Date.parse('2026-11-28T12:00:00Z'),
  });
  const guard_ = new LoopGuard({ config, bus, log: log.create({ level: -1 }) });
  /** Message n delivered: archived, counted, shown to the guard. */
  const deliver = async (n: number, content: string) => {
    const r = { id: formatId(n), sender: n % 2 ? 'a' : 'b', receiver: n % 2 ? 'b' : 'a', content } as ArchiveRecord;
    archive.set(r.id, r);
    state = { ...state, message_counter: n, last_message_id: r.id };
    await guard_.afterDelivery(r);
  };
  return {
    deliver,
    events,
    get state() {
      return state;
    },
    set state(s) {
      state = s;
    },
    archive,
    reads,
  };
}

describe('the loop guard in the daemon', () => {
  it('pauses on the fourth acknowledgement with the window as evidence', async () => {
    const w = world();
    for (const [i, t] of THANKS.entries()) await w.deliver(i + 1, t);
    expect(w.state.paused).toEqual({
      at: '2026-11-28T12:00:00.000Z',
      reason: 'loop',
      evidence: ['msg_0001', 'msg_0002', 'msg_0003', 'msg_0004'],
    });
    expect(w.state.loop_since).toBe(4);
    expect(w.events).toEqual([
      [
        'loop',
        { kind: 'acknowledgements', evidence: ['msg_0001', 'msg_0002', 'msg_0003', 'msg_0004'], current_turn: 'a' },
      ],
    ]);
  });

  it('off, finished or already paused: nothing', async () => {
    const off = world(false);
    for (const [i, t] of THANKS.entries()) await off.deliver(i + 1, t);
    expect(off.state.paused).toBeUndefined();
    const done = world();
    done.state = { ...done.state, finished: { reason: 'ended', at: 'x' } };
    for (const [i, t] of THANKS.entries()) await done.deliver(i + 1, t);
    expect(done.events).toEqual([]);
  });

  it('a conversation started anew under it (IDs numbered again) is read as it is now, not as it was', async () => {
    const w = world();
    for (const [i, t] of THANKS.slice(0, 3).entries()) await w.deliver(i + 1, t);
    // up --fresh on another machine, whose daemon delivered msg_0001..msg_0003 of the new conversation
    // (progress); this one delivers msg_0004, an acknowledgement: no loop.
    const fresh = [
      'We need a parser.',
      'I wrote one in src/parse.ts; its tests pass.',
      'Reviewed: add a test for empty input.',
    ];
    for (const [i, t] of fresh.entries())
      w.archive.set(formatId(i + 1), { id: formatId(i + 1), sender: 'a', receiver: 'b', content: t } as ArchiveRecord);
    w.state = { ...w.state, started_at: '2026-11-28T12:30:00.000Z' }; // the new conversation's first daemon start
    await w.deliver(4, 'Thanks!');
    expect(w.state.paused).toBeUndefined();
  });

  it('reads each message from the archive once, not the whole window at every delivery', async () => {
    const w = world();
    for (let n = 1; n <= 40; n++)
      await w.deliver(n, `Step ${n}: ${'abcdefghij'.slice(0, (n % 9) + 1)} done, next ${n + 1}.`);
    expect(w.state.paused).toBeUndefined();
    expect(w.reads).toEqual([]); // each one was the delivery itself when first read
  });
});
