/**
 * The courier's phase machine (core/delivery.ts, daemon/courier.ts) against a recording typist and an
 * in-memory bus: no tmux, no disk, no clock. Each failure goes back only as far as it must; a paste that
 * may have reached the pane makes every later paste say "(redelivered)"; the backoff grows and resets.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/config.js';
import type { ArchiveRecord } from '../../../src/core/record.js';
import { Availability } from '../../../src/daemon/availability.js';
import { Courier, type CourierParts } from '../../../src/daemon/courier.js';
import { Pipeline } from '../../../src/daemon/pipeline.js';
import { Underway } from '../../../src/daemon/underway.js';
import { log } from '../../../src/lib/log.js';
import { FencedError } from '../../../src/bus/bus.js';
import { pane, RecordingTypist } from '../../../test/helpers/recording-typist.js';
import { aRecord } from '../records.js';

const config = parseConfig(
  {
    agents: { a: { kind: 'generic', command: 'x' }, b: { kind: 'generic', command: 'x' } },
    directions: { a_to_b: ['a', 'b'], b_to_a: ['b', 'a'] },
  },
  '/p/config.json',
  '/p',
);
const record: ArchiveRecord = aRecord();

const unexpected = (name: string) => async (): Promise<never> => {
  throw new Error(`the courier called ${name}, which these tests never expect`);
};

function world(
  opts: { stampFails?: number; now?: () => number; catchUp?: string; typed?: (id: string, text: string) => void } = {},
) {
  const typist = new RecordingTypist();
  const stamps: ArchiveRecord[] = [];
  const events: Array<{ event: string; fields: Record<string, unknown> }> = [];
  const wakes: number[] = [];
  let stampFails = opts.stampFails ?? 0;
  let settles = 0;
  const bus: CourierParts['bus'] = {
    events: {
      emit: async (event, fields = {}) => void events.push({ event, fields }),
    },
    // What these tests never reach fails loudly, as a missing method did.
    commit: unexpected('commit'),
    settle: async () => void settles++,
    record: unexpected('record'),
    stamp: async (r) => {
      if (stampFails-- > 0) throw new Error('disk full');
      stamps.push(r);
    },
    amend: unexpected('amend'),
    // The conversation's clock (the database's on the PostgreSQL bus): this machine's unless a test says.
    now: opts.now ?? (() => Date.now()),
  };
  const quiet = log.create({ level: 0 });
  const availability = new Availability({
    config,
    typist,
    bus: { events: bus.events },
    log: quiet,
    wakeIn: (ms) => void wakes.push(ms),
    oneshot: false,
  });
  const delivered: ArchiveRecord[] = [];
  const underway = new Underway();
  const typing = new Pipeline({
    config,
    typist,
    availability,
    underway,
    bus: { ...bus, forward: unexpected('forward') },
    log: quiet,
  });
  const courier = new Courier({
    config,
    bus,
    typing,
    log: quiet,
    underway,
    delivered: async (r) => void delivered.push(r),
    ...(opts.catchUp !== undefined ? { catchUp: async () => ({ text: opts.catchUp!, named: ['msg_0005'] }) } : {}),
    ...(opts.typed ? { receipts: { takeEarly: () => undefined, stamped: () => {}, typed: opts.typed } } : {}),
  });
  return { typist, stamps, events, wakes, courier, delivered, settles: () => settles };
}

const begin = (w: ReturnType<typeof world>, opts = { typed: false }) =>
  w.courier.begin(record, { firstSeen: 0, turnSince: 0 }, opts);

describe('the courier', () => {
  it('types a committed message phase by phase and stamps it once', async () => {
    const w = world();
    begin(w);
    expect(w.courier.phase).toBe('committed');
    expect(await w.courier.advance()).toBe(true);
    expect(w.typist.steps()).toEqual([
      'ready',
      'paste [baton] msg_0007 from a (reply to msg_0006)',
      'landed',
      'enter',
      'confirm',
    ]);
    expect(w.stamps).toHaveLength(1);
    expect(w.stamps[0]).toMatchObject({ id: 'msg_0007', confirmed: 'not_checked' });
    expect(w.stamps[0]!.delivered_at).toBeTruthy();
    expect(w.stamps[0]!.redelivered).toBeUndefined();
    expect(w.courier.busy).toBe(false);
    expect(w.delivered.map((r) => r.id)).toEqual(['msg_0007']);
    expect(w.events.map((e) => e.event)).toEqual(['delivered']);
    // When its Enter was pressed (wall clock): an agent's hook receipt is measured from it.
    const entered = Date.parse(String(w.events[0]!.fields.entered_at));
    expect(entered).toBeGreaterThan(Date.now() - 10_000);
    expect(entered).toBeLessThanOrEqual(Date.parse(w.stamps[0]!.delivered_at!));
  });

  it("stamps delivered_at with the conversation's clock, not this machine's (another machine compares it)", async () => {
    const conversation = Date.parse('2026-01-01T00:00:00.000Z');
    const w = world({ now: () => conversation });
    begin(w);
    expect(await w.courier.advance()).toBe(true);
    expect(w.stamps[0]!.delivered_at).toBe('2026-01-01T00:00:00.000Z');
    // entered_at stays on this machine's clock: the agent's hook writes its receipt with that one.
    expect(Date.parse(String(w.events[0]!.fields.entered_at))).toBeGreaterThan(Date.now() - 10_000);
  });

  it('types what the receiver missed after the header, in the same paste, and tells the receipts what it typed', async () => {
    const typed: Array<[string, string]> = [];
    const block =
      '[baton] while you were away (context, not addressed to you):\n> msg_0005 c → a:\n> x\n[baton] the message to you:';
    const w = world({ catchUp: block, typed: (id, text) => void typed.push([id, text]) });
    begin(w);
    expect(await w.courier.advance()).toBe(true);
    const pastes = w.typist.calls.filter((c) => c.step === 'paste');
    expect(pastes).toHaveLength(1);
    const text = (pastes[0] as { text: string }).text;
    expect(text.startsWith(`[baton] msg_0007 from a (reply to msg_0006)\n${block}\nhello\n\n[baton] reply to`)).toBe(
      true,
    );
    expect(typed).toEqual([['msg_0007', text]]);
  });

  // A message held 9 s for its turn was once logged as "msg_0009 … in 9220.9 ms", as if typing it had been slow.
  it('reports time held before its turn apart from delivery time', async () => {
    const w = world();
    const turnSince = performance.now();
    w.courier.begin(record, { firstSeen: turnSince - 9000, turnSince }, { typed: false });
    expect(await w.courier.advance()).toBe(true);
    const f = w.events.find((e) => e.event === 'delivered')!.fields as {
      latency_ms: number;
      held_ms: number;
      delivery_ms: number;
    };
    expect(f.held_ms).toBe(9000);
    expect(f.delivery_ms).toBeLessThan(1000);
    expect(f.latency_ms).toBeCloseTo(f.held_ms + f.delivery_ms, 0);
  });

  it('a paste that failed cleanly is pasted again unflagged; one that may have landed is pasted again flagged', async () => {
    const clean = world();
    clean.typist.script.paste.push({ ok: false, error: 'no such buffer', maybeTyped: false });
    begin(clean);
    expect(await clean.courier.advance()).toBe(false);
    expect(clean.courier.phase).toBe('committed');
    expect(await clean.courier.advance()).toBe(true);
    expect(clean.typist.steps().filter((s) => s.startsWith('paste'))).toEqual([
      'paste [baton] msg_0007 from a (reply to msg_0006)',
      'paste [baton] msg_0007 from a (reply to msg_0006)',
    ]);
    expect(clean.stamps[0]!.redelivered).toBeUndefined();

    const timedOut = world();
    timedOut.typist.script.paste.push({ ok: false, error: 'tmux timed out', maybeTyped: true });
    begin(timedOut);
    await timedOut.courier.advance();
    await timedOut.courier.advance();
    expect(timedOut.typist.steps().filter((s) => s.startsWith('paste'))[1]).toBe(
      'paste [baton] msg_0007 from a (reply to msg_0006) (redelivered)',
    );
    expect(timedOut.stamps[0]!.redelivered).toBe(true);
    // The first paste may sit in the box, unseen (a generic agent): Enter alone goes first (leftover.ts).
    expect(timedOut.typist.steps().slice(3, 6)).toEqual([
      'box',
      'enter',
      'paste [baton] msg_0007 from a (reply to msg_0006) (redelivered)',
    ]);
    expect(timedOut.events.map((e) => e.event)).toEqual([
      'delivery_failed',
      'leftover_paste',
      'redelivered',
      'delivered',
    ]);
  });

  it('a paste that never showed in the box is pasted again in full, flagged; a lost Enter is pressed again alone', async () => {
    const lost = world();
    lost.typist.script.landed.push(false);
    begin(lost);
    expect(await lost.courier.advance()).toBe(false);
    expect(lost.courier.phase).toBe('committed');
    await lost.courier.advance();
    expect(lost.typist.steps()).toEqual([
      'ready',
      'paste [baton] msg_0007 from a (reply to msg_0006)',
      'landed',
      'ready',
      'box',
      'paste [baton] msg_0007 from a (reply to msg_0006) (redelivered)',
      'landed',
      'enter',
      'confirm',
    ]);
    // The retry looked for its own text in the box: it may be there, unsubmitted.
    expect(lost.typist.calls[3]).toMatchObject({ step: 'ready', ours: '[baton] msg_0007 ' });

    const enter = world();
    enter.typist.script.enter.push({ ok: false, error: 'Enter failed', maybeTyped: true });
    begin(enter);
    expect(await enter.courier.advance()).toBe(false);
    expect(enter.courier.phase).toBe('pasted');
    await enter.courier.advance();
    expect(enter.typist.steps()).toEqual([
      'ready',
      'paste [baton] msg_0007 from a (reply to msg_0006)',
      'landed',
      'enter',
      'ready',
      'landed',
      'enter',
      'confirm',
    ]);
    expect(enter.stamps[0]!.redelivered).toBeUndefined(); // typed once: not flagged
  });

  it('an unconfirmed submit is only looked at again; a failed stamp is stamped again with nothing typed', async () => {
    const w = world({ stampFails: 1 });
    w.typist.script.confirm.push({ ok: false, error: 'not confirmed', maybeTyped: true });
    begin(w);
    expect(await w.courier.advance()).toBe(false);
    expect(w.courier.phase).toBe('entered');
    await expect(w.courier.advance()).rejects.toThrow('disk full');
    expect(w.courier.phase).toBe('confirmed');
    expect(await w.courier.advance()).toBe(true);
    expect(w.typist.steps().filter((s) => s !== 'ready')).toEqual([
      'paste [baton] msg_0007 from a (reply to msg_0006)',
      'landed',
      'enter',
      'confirm',
      'confirm',
    ]);
    expect(w.stamps).toHaveLength(1);
  });

  it('a delivery cut short at start-up that may have been typed is typed again flagged', async () => {
    const w = world();
    begin(w, { typed: true });
    await w.courier.advance();
    // A generic agent's box is not read: Enter alone first, so an unsubmitted first paste goes on its own.
    expect(w.typist.steps().slice(0, 4)).toEqual([
      'ready',
      'box',
      'enter',
      'paste [baton] msg_0007 from a (reply to msg_0006) (redelivered)',
    ]);
    expect(w.typist.calls[2]).toEqual({ step: 'enter', pane: '%1', alone: true });
    expect(w.stamps[0]!.redelivered).toBe(true);
    expect(w.events.map((e) => [e.event, e.fields.action])).toEqual([
      ['leftover_paste', 'entered'],
      ['redelivered', undefined],
      ['delivered', undefined],
    ]);
  });

  it('an unavailable pane waits with a growing backoff, reported once per outage; a success resets it', async () => {
    const w = world();
    for (let i = 0; i < 7; i++) w.typist.script.ready.push({ ok: false, reason: 'there is no tmux session "b"' });
    begin(w);
    for (let i = 0; i < 7; i++) expect(await w.courier.advance()).toBe(false);
    expect(w.settles(), 'a delivery that waits asks the bus to write out what it holds back').toBe(7);
    expect(w.wakes).toEqual([250, 500, 1000, 2000, 4000, 5000, 5000]);
    expect(w.events.filter((e) => e.event === 'pane_unavailable')).toHaveLength(1);
    expect(await w.courier.advance()).toBe(true);
    expect(w.events.filter((e) => e.event === 'pane_available')).toHaveLength(1);
    expect(w.typist.calls.filter((c) => c.step === 'paste')).toHaveLength(1);
    w.typist.script.ready.push({ ok: false, reason: 'gone again' });
    begin(w);
    await w.courier.advance();
    expect(w.wakes.at(-1)).toBe(250);
  });

  it('the same failure is reported once, a different one again', async () => {
    const w = world();
    w.typist.script.enter.push(
      { ok: false, error: 'A', maybeTyped: true },
      { ok: false, error: 'A', maybeTyped: true },
      { ok: false, error: 'B', maybeTyped: true },
    );
    begin(w);
    for (let i = 0; i < 4; i++) await w.courier.advance();
    expect(w.events.filter((e) => e.event === 'delivery_failed').map((e) => e.fields.error)).toEqual(['A', 'B']);
  });

  // The moments between a paste and its confirmation: the world may change in between.
  it('a pane that is another instance when its Enter is due gets the message again in full, flagged — never an Enter alone', async () => {
    const w = world();
    w.typist.script.enter.push({
      ok: false,
      error: 'the pane is not the one it was',
      maybeTyped: false,
      refused: 'moved',
    });
    begin(w);
    expect(await w.courier.advance()).toBe(false);
    expect(w.courier.phase).toBe('committed');
    // The session was replaced: same id, another process.
    w.typist.script.ready.push({ ok: true, pane: pane('%1', 200) });
    expect(await w.courier.advance()).toBe(true);
    expect(w.typist.steps().filter((x) => x !== 'ready' && x !== 'landed')).toEqual([
      'paste [baton] msg_0007 from a (reply to msg_0006)',
      'enter',
      'box', // what is there to see of a pane that never got the text: nothing (and no Enter alone)
      'paste [baton] msg_0007 from a (reply to msg_0006) (redelivered)',
      'enter',
      'confirm',
    ]);
    const enters = w.typist.calls.filter((c) => c.step === 'enter') as Array<{ pane: string }>;
    expect(enters).toHaveLength(2);
    expect(w.stamps[0]!.redelivered).toBe(true);
  });

  it("the agent's pane replaced after the paste, before the Enter: typed again in the new one, the Enter never sent alone", async () => {
    const w = world();
    w.typist.script.enter.push({ ok: false, error: 'copy mode', maybeTyped: false, refused: 'copy_mode' });
    begin(w);
    await w.courier.advance(); // pasted into %1 (process 100); Enter held by copy mode
    expect(w.courier.phase).toBe('pasted');
    w.typist.script.ready.push({ ok: true, pane: pane('%4', 300) }); // meanwhile the session was killed and started again
    expect(await w.courier.advance()).toBe(false);
    expect(w.courier.phase).toBe('committed');
    w.typist.script.ready.push({ ok: true, pane: pane('%4', 300) });
    expect(await w.courier.advance()).toBe(true);
    const pastes = w.typist.calls.filter((c) => c.step === 'paste') as Array<{ pane: string; text: string }>;
    expect(pastes.map((c) => [c.pane, c.text.split('\n')[0]])).toEqual([
      ['%1', '[baton] msg_0007 from a (reply to msg_0006)'],
      ['%4', '[baton] msg_0007 from a (reply to msg_0006) (redelivered)'],
    ]);
    expect((w.typist.calls.filter((c) => c.step === 'enter') as Array<{ pane: string }>).map((c) => c.pane)).toEqual([
      '%1',
      '%4',
    ]);
  });

  it('copy mode holds the Enter: pressed once the person stops scrolling, the text not typed again', async () => {
    const w = world();
    w.typist.script.enter.push({ ok: false, error: 'copy mode', maybeTyped: false, refused: 'copy_mode' });
    begin(w);
    expect(await w.courier.advance()).toBe(false);
    expect(w.courier.phase).toBe('pasted');
    expect(await w.courier.advance()).toBe(true);
    expect(w.typist.calls.filter((c) => c.step === 'paste')).toHaveLength(1);
    expect(w.typist.calls.filter((c) => c.step === 'enter')).toHaveLength(2);
    expect(w.stamps[0]!.redelivered).toBeUndefined();
  });

  it('a keystroke tmux refuses because another daemon holds the conversation stops this one', async () => {
    const w = world();
    w.typist.script.paste.push({
      ok: false,
      error: 'another daemon holds this conversation now',
      maybeTyped: false,
      refused: 'fenced',
    });
    begin(w);
    await expect(w.courier.advance()).rejects.toBeInstanceOf(FencedError);
    expect(w.stamps).toEqual([]);
  });

  it('a shell gets one inert line naming the message; a program without bracketed paste one line', async () => {
    const shell = world();
    shell.typist.script.intake.push('inert');
    begin(shell);
    await shell.courier.advance();
    expect((shell.typist.calls.find((c) => c.step === 'paste') as { text: string }).text).toBe(
      '# baton: msg_0007 from a reply to msg_0006 - read it with: baton show msg_0007',
    );
    const line = world();
    line.typist.script.intake.push('one_line');
    begin(line);
    await line.courier.advance();
    const text = (line.typist.calls.find((c) => c.step === 'paste') as { text: string }).text;
    expect(text).not.toContain('\n');
    expect(text).toMatch(
      /^\[baton\] msg_0007 from a \(reply to msg_0006\) \u23CE hello \u23CE {2}\u23CE \[baton\] reply to a with/,
    );
  });

  // A daemon killed between a paste and its Enter: its next start finds the paste unsubmitted.
  describe('a paste an earlier daemon left unsubmitted', () => {
    const copies = (w: ReturnType<typeof world>) =>
      (w.typist.calls.find((c) => c.step === 'box') as { copies: readonly string[] }).copies.map(
        (c) => c.split('\n')[0],
      );

    it('in a box baton reads, holding that message: submitted as it is, never pasted again', async () => {
      const w = world();
      w.typist.script.box.push({ kind: 'copy', which: 0 });
      begin(w, { typed: true });
      expect(await w.courier.advance()).toBe(true);
      expect(w.typist.steps()).toEqual(['ready', 'box', 'landed', 'enter', 'confirm']);
      expect(copies(w)).toEqual([
        '[baton] msg_0007 from a (reply to msg_0006)',
        '[baton] msg_0007 from a (reply to msg_0006) (redelivered)',
      ]);
      // The agent got it once, unflagged: the record says so.
      expect(w.stamps[0]!.redelivered).toBeUndefined();
      expect(w.events.map((e) => e.event)).toEqual(['leftover_paste', 'delivered']);
      expect(w.events[0]!.fields).toEqual({ id: 'msg_0007', to: 'b', action: 'submitted', copy: 'unflagged' });
    });

    it('the flagged copy, or a marker that cannot tell which copy: stamped redelivered', async () => {
      for (const [which, copy] of [
        [1, 'flagged'],
        [null, 'unknown'],
      ] as const) {
        const w = world();
        w.typist.script.box.push({ kind: 'copy', which });
        begin(w, { typed: true });
        expect(await w.courier.advance()).toBe(true);
        expect(w.typist.calls.filter((c) => c.step === 'paste')).toEqual([]);
        expect(w.stamps[0]!.redelivered).toBe(true);
        expect(w.events.map((e) => e.event)).toEqual(['leftover_paste', 'redelivered', 'delivered']);
        expect(w.events[0]!.fields.copy).toBe(copy);
      }
    });

    it('holding other text: nothing typed behind it; it waits, then an empty box gets the flagged copy', async () => {
      const w = world();
      w.typist.script.box.push(
        { kind: 'other', detail: 'its input box holds text ("half a sentence"): a person may be typing' },
        { kind: 'other', detail: 'its input box holds text ("half a sentence"): a person may be typing' },
        { kind: 'empty' },
      );
      begin(w, { typed: true });
      expect(await w.courier.advance()).toBe(false);
      expect(await w.courier.advance()).toBe(false);
      expect(w.typist.calls.filter((c) => c.step === 'paste' || c.step === 'enter')).toEqual([]);
      const failed = w.events.filter((e) => e.event === 'delivery_failed');
      expect(failed).toHaveLength(1); // reported once
      expect(failed[0]!.fields.error).toBe(
        'b\'s input box holds something other than msg_0007 alone (its input box holds text ("half a sentence"): a person may be typing); waiting until it is empty: nothing is typed behind it',
      );
      expect(w.wakes).toEqual([250, 500]);
      expect(await w.courier.advance()).toBe(true);
      expect(w.typist.steps().slice(-5)).toEqual([
        'box',
        'paste [baton] msg_0007 from a (reply to msg_0006) (redelivered)',
        'landed',
        'enter',
        'confirm',
      ]);
      expect(w.stamps[0]!.redelivered).toBe(true);
    });

    it('an Enter alone refused because the pane is another one now: that pane got nothing, so no Enter alone again', async () => {
      const w = world();
      w.typist.script.enter.push({ ok: false, error: 'moved', maybeTyped: false, refused: 'moved' });
      begin(w, { typed: true });
      expect(await w.courier.advance()).toBe(false);
      w.typist.script.ready.push({ ok: true, pane: pane('%1', 200) });
      expect(await w.courier.advance()).toBe(true);
      expect(w.typist.steps()).toEqual([
        'ready',
        'box',
        'enter',
        'ready',
        'box',
        'paste [baton] msg_0007 from a (reply to msg_0006) (redelivered)',
        'landed',
        'enter',
        'confirm',
      ]);
    });
  });
});
