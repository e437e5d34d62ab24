/**
 * daemon/pipeline.ts, the one way text gets into a pane, against a recording typist: text of baton's own
 * typed whole (paste, the typist's Enter when the paste landed, confirmation) or handed to the daemon of the
 * machine that runs the agent; and its one gate, which the delivery under way and a hold close for everyone
 * else. (Deliveries through it: courier.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/config.js';
import type { Request } from '../../../src/core/requests.js';
import { begin, fresh } from '../../../src/core/delivery.js';
import { Availability } from '../../../src/daemon/availability.js';
import { Pipeline } from '../../../src/daemon/pipeline.js';
import { Underway } from '../../../src/daemon/underway.js';
import { log } from '../../../src/lib/log.js';
import { pane, RecordingTypist } from '../../helpers/recording-typist.js';
import { aRecord } from '../records.js';
import { fakeDeliveryBus, recordingLog } from './fake-delivery-bus.js';

const config = parseConfig(
  {
    agents: {
      here: { kind: 'gemini', command: 'gemini' },
      slow: { kind: 'claude', command: 'claude' },
      far: { kind: 'claude', command: 'claude', host: 'other-machine' },
    },
    directions: { h_to_s: ['here', 'slow'], s_to_f: ['slow', 'far'], f_to_h: ['far', 'here'] },
    turns: { policy: 'round_robin' },
  },
  '/p/config.json',
  '/p',
  { BATON_HOST: 'this-machine' },
);

function world(held: Record<string, string> = {}, shown?: Array<{ ids: string[]; pastesBefore: number }>) {
  const typist = new RecordingTypist();
  const forwarded: Request[] = [];
  const bus = fakeDeliveryBus({ forward: async (r) => void forwarded.push(r) });
  const availability = new Availability({
    config,
    typist,
    bus: { events: { emit: async () => {} } },
    log: recordingLog(log).log,
    wakeIn: () => {},
    oneshot: false,
  });
  const underway = new Underway();
  const typing = new Pipeline({
    config,
    typist,
    availability,
    underway,
    bus,
    log: recordingLog(log).log,
    hold: async (agent) => held[agent] ?? null,
    ...(shown && {
      shown: {
        keep: async (ids: readonly string[]) =>
          void shown.push({ ids: [...ids], pastesBefore: typist.calls.filter((c) => c.step === 'paste').length }),
      },
    }),
  });
  return { typist, forwarded, availability, underway, typing, notice: typing.notice.bind(typing) };
}

describe('a notice for an agent on this machine', () => {
  it('is typed whole into its pane: pasted, Enter when the typist says the paste landed, confirmed', async () => {
    const w = world();
    w.typist.script.ready.push({ ok: true, pane: pane('%5') });
    expect(await w.notice('here', '[baton] reminder: it is your turn')).toBeNull();
    expect(w.typist.calls).toEqual([
      { step: 'ready', agent: 'here', ours: undefined },
      { step: 'paste', pane: '%5', text: '[baton] reminder: it is your turn' },
      { step: 'landed', pane: '%5' },
      { step: 'enter', pane: '%5' },
      { step: 'confirm', pane: '%5', ours: '[baton] reminder: it is your turn' },
    ]);
    expect(w.forwarded).toEqual([]);
  });

  it('a shell gets it as one inert line; a program without bracketed paste on one line', async () => {
    const w = world();
    w.typist.script.intake.push('inert', 'one_line');
    await w.notice('here', "[baton] the conversation has finished: 'x'; stop");
    await w.notice('here', '[baton] two\nlines');
    const pastes = w.typist.calls.filter((c) => c.step === 'paste').map((c) => (c as { text: string }).text);
    expect(pastes).toEqual([
      "# baton: 'the conversation has finished: \u2019x\u2019; stop'",
      '[baton] two \u23CE lines',
    ]);
  });

  it('a pane that is not ready says why, and nothing is typed', async () => {
    const w = world();
    w.typist.script.ready.push({ ok: false, reason: 'its input box holds text' });
    expect(await w.notice('slow', 'x')).toBe('its input box holds text');
    expect(w.typist.calls.map((c) => c.step)).toEqual(['ready']);
  });

  it('typing that failed says how', async () => {
    const w = world();
    w.typist.script.paste.push({ ok: false, error: 'the paste timed out', maybeTyped: true });
    expect(await w.notice('slow', 'x')).toBe('the paste timed out');
  });

  it('what it typed into a pane makes an early look at that pane stale', async () => {
    const w = world();
    const readies = () => w.typist.calls.filter((c) => c.step === 'ready').length;
    w.typist.script.ready.push({ ok: true, pane: pane('%5') }, { ok: true, pane: pane('%5') });
    w.availability.earlyLook('here');
    await w.typing.advance({ to: 'here', text: { notice: 'x' }, pane: pane('%5') }, fresh(false));
    await w.availability.check('here'); // a look from before the typing is not used
    expect(readies()).toBe(2);
  });
});

describe("a notice for another machine's agent", () => {
  it("goes to that machine's daemon as a request, and nothing is typed here", async () => {
    const w = world();
    expect(await w.notice('far', '[baton] the conversation is paused')).toBeNull();
    expect(w.forwarded).toEqual([{ op: 'notice', to: 'far', text: '[baton] the conversation is paused' }]);
    expect(w.typist.calls).toEqual([]);
  });
});

describe('the gate', () => {
  it('closes the pane of a delivery not yet stamped to everyone but that delivery', async () => {
    const w = world();
    const record = aRecord({ id: 'msg_0007', receiver: 'slow' });
    w.underway.delivery = begin(record, { firstSeen: 0, turnSince: 0 }, { typed: true });
    expect(await w.notice('slow', 'x')).toBe('a message to slow is still being delivered');
    expect(await w.typing.gate('slow', { id: 'user_0002', inBox: true })).toMatchObject({ ok: false });
    expect(w.typist.calls).toEqual([]);
    // The delivery itself goes on, its own paste in the box not counting against it.
    expect(await w.typing.gate('slow', { id: 'msg_0007', inBox: true })).toMatchObject({ ok: true });
    expect(w.typist.calls).toEqual([{ step: 'ready', agent: 'slow', ours: '[baton] msg_0007 ' }]);
    // Another agent's pane is open.
    expect(await w.notice('here', 'y')).toBeNull();
  });

  it('a held agent gets nothing, whoever asks, and its pane is not even looked at', async () => {
    const w = world({ slow: 'slow waits at a permission dialog' });
    expect(await w.notice('slow', 'x')).toBe('slow waits at a permission dialog');
    expect(await w.typing.gate('slow', { id: 'msg_0007', inBox: true })).toEqual({
      ok: false,
      reason: 'slow waits at a permission dialog',
    });
    expect(w.typist.calls).toEqual([]);
  });
});

describe('a dialog that opens while the text is on its way', () => {
  const envelope = { id: 'msg_0007', from: 'far', to: 'here', reply_to: null, type: 'message', content: 'hi' };

  it('before the paste: nothing is typed, and it is pasted once the hold is lifted', async () => {
    const held: Record<string, string> = {};
    const w = world(held);
    w.typist.script.ready.push({ ok: true, pane: pane('%5') });
    const catchUp = async () => {
      held.here = 'here waits at a permission dialog';
      return { text: '', named: [] };
    };
    const out = await w.typing.advance({ to: 'here', text: { envelope, hint: 'h', catchUp } }, fresh(false));
    expect(out.stop).toEqual({ kind: 'unavailable', reason: 'here waits at a permission dialog' });
    expect(out.typing).toEqual(fresh(false));
    expect(w.typist.calls.map((c) => c.step)).toEqual(['ready']);
  });

  it('after the paste: no Enter while it holds (it would answer the dialog); Enter alone once lifted', async () => {
    const held: Record<string, string> = {};
    const w = world(held);
    w.typist.script.ready.push({ ok: true, pane: pane('%5') }, { ok: true, pane: pane('%5') });
    const paste = w.typist.paste.bind(w.typist);
    w.typist.paste = async (...args) => {
      held.here = 'here waits at a permission dialog';
      return paste(...args);
    };
    const out = await w.typing.advance({ to: 'here', text: { envelope, hint: 'h' } }, fresh(false));
    expect(out.stop).toEqual({ kind: 'unavailable', reason: 'here waits at a permission dialog' });
    expect(out.typing.phase).toBe('pasted');
    expect(w.typist.calls.map((c) => c.step)).toEqual(['ready', 'paste', 'landed']);
    // Still held: the gate keeps it out, nothing is looked at.
    expect((await w.typing.advance({ to: 'here', text: { envelope, hint: 'h' } }, out.typing)).stop).toMatchObject({
      kind: 'unavailable',
    });
    delete held.here;
    w.typist.calls.length = 0;
    const done = await w.typing.advance({ to: 'here', text: { envelope, hint: 'h' } }, out.typing);
    expect(done.stop).toBeNull();
    expect(w.typist.calls.map((c) => c.step)).toEqual(['ready', 'landed', 'enter', 'confirm']);
  });
});

describe('what a pane is told to read with baton show (the PostgreSQL bus: daemon/shown.ts)', () => {
  const envelope = { id: 'msg_0007', from: 'far', to: 'here', reply_to: null, type: 'message', content: 'hi' };
  const catchUp = async () => ({ text: '[baton] while you were away:\n> msg_0005 …', named: ['msg_0005', 'msg_0006'] });

  it('is copied before the paste that names it: a shell its message, anyone what its catch-up names', async () => {
    const shown: Array<{ ids: string[]; pastesBefore: number }> = [];
    const w = world({}, shown);
    w.typist.script.intake.push('inert', 'whole', 'whole', 'inert');
    await w.typing.advance({ to: 'here', text: { envelope, hint: 'h' } }, fresh(false));
    expect(shown).toEqual([{ ids: ['msg_0007'], pastesBefore: 0 }]);
    await w.typing.advance({ to: 'here', text: { envelope, hint: 'h', catchUp } }, fresh(false));
    expect(shown[1]).toEqual({ ids: ['msg_0005', 'msg_0006'], pastesBefore: 1 });
    // Typed whole with nothing named, or a notice of baton's own (no message to read): no copy.
    await w.typing.advance({ to: 'here', text: { envelope, hint: 'h' } }, fresh(false));
    await w.notice('here', '[baton] a reminder');
    expect(shown).toHaveLength(2);
  });
});
