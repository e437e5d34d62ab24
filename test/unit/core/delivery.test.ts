/**
 * core/delivery.ts: text on its way into a pane, as data. Every step returns a new state; a failure goes back
 * only as far as it must, and once the text may be in a pane every later paste says "(redelivered)".
 */
import { describe, expect, it } from 'vitest';
import {
  begin,
  cleared,
  confirmed,
  entered,
  failed,
  found,
  fresh,
  type PaneRef,
  type Phase,
  pasted,
  type Typing,
} from '../../../src/core/delivery.js';
import type { ArchiveRecord } from '../../../src/core/record.js';
import { aRecord } from '../records.js';

const record: ArchiveRecord = aRecord();
const timing = { firstSeen: 1, turnSince: 2 };
const pane: PaneRef = { id: '%3', pid: 4242, server: '77:1700000000' };

const isIn = <P extends Phase>(t: Typing, phase: P): t is Extract<Typing, { phase: P }> => t.phase === phase;

/** Narrow to one phase, or fail the test: the steps take only the phase they follow. */
function inPhase<P extends Phase>(t: Typing, phase: P): Extract<Typing, { phase: P }> {
  if (!isIn(t, phase)) throw new Error(`expected phase ${phase}, got ${t.phase}`);
  return t;
}

const committed = (typed: boolean) => inPhase(begin(record, timing, { typed }).typing, 'committed');
const pastedOnce = (typed = false) => pasted(committed(typed), pane, 10);
const enteredOnce = (typed = false) => entered(pastedOnce(typed), 20);

describe('beginning a delivery', () => {
  it('a committed turn step starts at committed, carrying whether the text may be typed already', () => {
    expect(begin(record, timing, { typed: false })).toEqual({
      record,
      timing,
      typing: { phase: 'committed', typed: false, leftover: false },
    });
    // Found cut short at start-up, maybe typed: what that paste left in the pane is looked for first.
    expect(begin(record, timing, { typed: true }).typing).toEqual({
      phase: 'committed',
      typed: true,
      leftover: true,
    });
    // Any other text typed again (a person's message, a note) starts the same way.
    expect(fresh(true)).toEqual({ phase: 'committed', typed: true, leftover: true });
  });
});

describe('the steps of a delivery', () => {
  it('a first paste is no redelivery; the text may be in the box from then on', () => {
    const t = pastedOnce(false);
    expect(t).toEqual({ phase: 'pasted', typed: true, redelivered: false, pane, pastedAt: 10 });
    expect(t.typed).toBe(true);
  });

  it('a paste of a text that may have been typed before says it is redelivered', () => {
    expect(pastedOnce(true)).toMatchObject({ phase: 'pasted', typed: true, redelivered: true });
  });

  it('Enter and the look at the screen keep the pane and the paste time, and add their own', () => {
    const e = enteredOnce(true);
    expect(e).toEqual({
      phase: 'entered',
      typed: true,
      redelivered: true,
      pane,
      pastedAt: 10,
      enteredAt: 20,
    });
    expect(confirmed(e, 'screen_after_second_enter')).toEqual({
      ...e,
      phase: 'confirmed',
      confirmation: 'screen_after_second_enter',
    });
  });

  it('a step returns a new state and leaves the one it came from as it was', () => {
    const c = committed(false);
    const before = structuredClone(c);
    const p = pasted(c, pane, 10);
    expect(p).not.toBe(c);
    expect(c).toEqual(before);
    const e = entered(p, 20);
    confirmed(e, 'hook');
    expect(e.phase).toBe('entered');
  });
});

describe('a paste an earlier daemon left in the pane', () => {
  it('found in the box: submitted as it is, from the pane it is in, flagged as that copy was', () => {
    expect(found(pane, 40, false)).toEqual({ phase: 'pasted', typed: true, redelivered: false, pane, pastedAt: 40 });
    expect(found(pane, 40, true)).toMatchObject({ phase: 'pasted', redelivered: true });
  });

  it('cleared by an Enter alone: still to be pasted, flagged, with nothing left before it', () => {
    expect(cleared(committed(true))).toEqual({ ...committed(true), leftover: false });
    expect(pasted(cleared(committed(true)), pane, 50).redelivered).toBe(true);
  });
});

describe('a failed step', () => {
  it('a paste that failed before anything may have been typed stays untyped', () => {
    expect(failed(committed(false), { maybeTyped: false })).toEqual(committed(false));
  });

  it('a paste that may have reached the pane marks the text typed, for good', () => {
    const t = failed(committed(false), { maybeTyped: true });
    expect(t).toMatchObject({ phase: 'committed', typed: true, leftover: true });
    expect(failed(t, { maybeTyped: false })).toMatchObject({ phase: 'committed', typed: true });
    expect(pasted(inPhase(t, 'committed'), pane, 30).redelivered).toBe(true);
  });

  it('a lost paste goes back to committed, typed, and forgets the pane it went to', () => {
    // Lost to that pane: nothing of it is left there to submit.
    const expected = { phase: 'committed', typed: true, leftover: false };
    expect(failed(pastedOnce(), { maybeTyped: true, pasteLost: true })).toStrictEqual(expected);
    expect(failed(enteredOnce(), { maybeTyped: false, pasteLost: true })).toStrictEqual(expected);
    expect(failed(committed(true), { maybeTyped: true, pasteLost: true })).toStrictEqual(expected);
  });

  it('a failed Enter or look stays where it is, to be tried again', () => {
    const p = pastedOnce();
    const e = enteredOnce();
    expect(failed(p, { maybeTyped: true })).toBe(p);
    expect(failed(e, { maybeTyped: true })).toBe(e);
    expect(failed(e, { maybeTyped: false, pasteLost: false })).toBe(e);
  });

  it('a confirmed text never goes back to be pasted', () => {
    const c = confirmed(enteredOnce(), 'screen');
    expect(failed(c, { maybeTyped: true, pasteLost: true })).toBe(c);
  });
});
