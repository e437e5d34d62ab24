/**
 * daemon/restarted.ts: the turn holder found in another pane instance than the one its message was typed
 * into (a reboot, `down` and `up`, a pane started again) is told what it owes — its message again through
 * the courier, flagged, or a reminder — once; a pane that is the same, or a holder that owes nothing, is
 * left alone. Against fakes: no tmux.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { parseConfig } from '../../../src/config/config.js';
import type { ArchiveRecord } from '../../../src/core/record.js';
import type { State } from '../../../src/core/state.js';
import { Restarts } from '../../../src/daemon/restarted.js';
import { log } from '../../../src/lib/log.js';
import type { PaneInfo } from '../../../src/terminal/pane.js';
import { pane } from '../../helpers/recording-typist.js';
import { fakeDeliveryBus } from './fake-delivery-bus.js';

let now = 0;
beforeEach(() => {
  now = 10_000;
  vi.spyOn(performance, 'now').mockImplementation(() => now);
});
afterEach(() => vi.restoreAllMocks());

const OLD = { id: '%1', pid: 100, server: '1:1' };

function world(o: {
  located: PaneInfo | null;
  record?: Partial<ArchiveRecord>;
  state?: Partial<State>;
  waiting?: number;
}) {
  const config = parseConfig(
    {
      agents: { a: { kind: 'claude', command: 'claude' }, b: { kind: 'claude', command: 'claude' } },
      directions: { a_to_b: ['a', 'b'], b_to_a: ['b', 'a'] },
    },
    '/p/config.json',
    '/p',
    { BATON_HOST: 'here' },
  );
  const state: State = {
    current_turn: 'b',
    last_message_id: 'msg_0005',
    message_counter: 5,
    pending_reply_to: 'msg_0005',
    ...o.state,
  };
  let record: ArchiveRecord = {
    id: 'msg_0005',
    reply_to: 'msg_0004',
    sender: 'a',
    receiver: 'b',
    type: 'message',
    content: 'five',
    direction: 'a_to_b',
    source_file: 'm.json',
    received_at: 'x',
    delivered_at: 'y',
    typed_into: OLD,
    received: { at: 'z', intact: true },
    ...o.record,
  } as ArchiveRecord;
  const typed: string[] = [];
  const redelivered: string[] = [];
  const events: Array<Record<string, unknown>> = [];
  const bus = fakeDeliveryBus({
    state: () => state,
    record: async () => record,
    amend: async (_id, fields) => {
      record = { ...record, ...fields };
      return true;
    },
    waitingFrom: async () => o.waiting ?? 0,
    events: { emit: async (event, fields = {}) => void events.push({ event, ...fields }) },
  });
  const restarts = new Restarts({
    config,
    bus,
    log: log.create({ level: 0 }),
    typist: { locate: async () => o.located },
    typing: {
      gate: async () => (o.located ? { ok: true, pane: o.located } : { ok: false, reason: 'no pane' }),
      notice: async (_agent, text) => {
        typed.push(text);
        return null;
      },
    },
    courier: {
      begin: (r, _t, opts) => void redelivered.push(`${r.id} typed=${opts.typed}`),
      advance: async () => true,
    },
  });
  return { restarts, typed, redelivered, events, record: () => record };
}

describe('the turn holder in a new pane', () => {
  it('resumed, its receipt came: reminded once, and the record names the new pane', async () => {
    const fresh = { ...pane('%7', 200, '2:2'), start: 'resumed' };
    const w = world({ located: fresh });
    expect(await w.restarts.check()).toBe(true);
    expect(w.typed).toHaveLength(1);
    expect(w.typed[0]).toMatch(/^\[baton\] b, your session was resumed: it is your turn, and msg_0005 from a/);
    expect(w.record().typed_into).toEqual({ id: '%7', pid: 200, server: '2:2' });
    expect(w.events).toEqual([
      expect.objectContaining({ event: 'restarted', agent: 'b', id: 'msg_0005', told: 'remind' }),
    ]);
    now += 5000;
    expect(await w.restarts.check()).toBe(false);
    expect(w.typed).toHaveLength(1);
  });

  it('resumed, no receipt: the message again through the courier, flagged', async () => {
    const w = world({ located: { ...pane('%7', 200, '2:2'), start: 'resumed' }, record: { received: undefined } });
    expect(await w.restarts.check()).toBe(true);
    expect(w.redelivered).toEqual(['msg_0005 typed=true']);
    expect(w.typed).toEqual([]);
  });

  it('started new: the message again, receipt or not', async () => {
    const w = world({ located: { ...pane('%7', 200, '2:2'), start: 'fresh' } });
    expect(await w.restarts.check()).toBe(true);
    expect(w.redelivered).toEqual(['msg_0005 typed=true']);
  });

  it('the same pane, no pane, a dead one, or a look within LOOK_MS: nothing', async () => {
    expect(await world({ located: { ...pane('%1', 100, '1:1'), start: 'fresh' } }).restarts.check()).toBe(false);
    expect(await world({ located: null }).restarts.check()).toBe(false);
    expect(await world({ located: { ...pane('%7', 200, '2:2'), dead: true } }).restarts.check()).toBe(false);
    const w = world({ located: { ...pane('%7', 200, '2:2'), start: 'fresh' }, state: { paused: { at: 'now' } } });
    expect(await w.restarts.check()).toBe(false); // paused: later
    now += 100;
    expect(await w.restarts.check()).toBe(false);
  });

  it('a holder that answered already, or a record from before panes were recorded: nothing', async () => {
    expect(await world({ located: { ...pane('%7', 200, '2:2'), start: 'fresh' }, waiting: 1 }).restarts.check()).toBe(
      false,
    );
    const old = world({ located: { ...pane('%7', 200, '2:2'), start: 'fresh' }, record: { typed_into: undefined } });
    expect(await old.restarts.check()).toBe(false);
    expect(old.redelivered).toEqual([]);
  });
});
