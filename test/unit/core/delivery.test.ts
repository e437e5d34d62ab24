/**
 * core/delivery.ts: one delivery's phases as data. Every step returns a new delivery; a failure goes back
 * only as far as it must, and once the text may be in a pane every later paste says "(redelivered)".
 */
import { describe, expect, it } from 'vitest';
import {
  begin,
  cleared,
  confirmed,
  type Delivery,
  entered,
  failed,
  found,
  mayBeInBox,
  type PaneRef,
  type Phase,
  pasted,
  saved,
} from '../../../src/core/delivery.js';
import type { ArchiveRecord } from '../../../src/core/record.js';
import { aRecord } from '../records.js';

const record: ArchiveRecord = aRecord();
const timing = { firstSeen: 1, turnSince: 2 };
const pane: PaneRef = { id: '%3', pid: 4242, server: '77:1700000000' };

const isIn = <P extends Phase>(d: Delivery, phase: P): d is Extract<Delivery, { phase: P }> => d.phase === phase;

/** Narrow to one phase, or fail the test: the steps take only the phase they follow. */
function inPhase<P extends Phase>(d: Delivery, phase: P): Extract<Delivery, { phase: P }> {
  if (!isIn(d, phase)) throw new Error(`expected phase ${phase}, got ${d.phase}`);
  return d;
}

const committed = (typed: boolean) => inPhase(begin(record, timing, { typed, saved: true }), 'committed');
const pastedOnce = (typed = false) => inPhase(pasted(committed(typed), pane, 10), 'pasted');
const enteredOnce = (typed = false) => inPhase(entered(pastedOnce(typed), 20), 'entered');

describe('beginning a delivery', () => {
  it('a committed turn step starts at committed, carrying whether the text may be typed already', () => {
    expect(begin(record, timing, { typed: false, saved: true })).toEqual({
      phase: 'committed',
      record,
      timing,
      typed: false,
      leftover: false,
    });
    // Found cut short at start-up, maybe typed: what that paste left in the pane is looked for first.
    expect(begin(record, timing, { typed: true, saved: true })).toMatchObject({
      phase: 'committed',
      typed: true,
      leftover: true,
    });
  });

  it('a state not saved yet starts at archived, where nothing is typed, and saving it moves to committed', () => {
    const d = inPhase(begin(record, timing, { typed: false, saved: false }), 'archived');
    expect(d).toEqual({ phase: 'archived', record, timing, typed: false });
    expect(mayBeInBox(d)).toBe(false);
    expect(saved(d)).toEqual({ phase: 'committed', record, timing, typed: false, leftover: false });
  });
});

describe('the steps of a delivery', () => {
  it('a first paste is no redelivery; the text may be in the box from then on', () => {
    const d = pastedOnce(false);
    expect(d).toEqual({ phase: 'pasted', record, timing, typed: true, redelivered: false, pane, pastedAt: 10 });
    expect(mayBeInBox(d)).toBe(true);
  });

  it('a paste of a text that may have been typed before says it is redelivered', () => {
    expect(pastedOnce(true)).toMatchObject({ phase: 'pasted', typed: true, redelivered: true });
  });

  it('Enter and the look at the screen keep the pane and the paste time, and add their own', () => {
    const e = enteredOnce(true);
    expect(e).toEqual({
      phase: 'entered',
      record,
      timing,
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

  it('a step returns a new delivery and leaves the one it came from as it was', () => {
    const c = committed(false);
    const before = structuredClone(c);
    const p = pasted(c, pane, 10);
    expect(p).not.toBe(c);
    expect(c).toEqual(before);
    const e = inPhase(entered(inPhase(p, 'pasted'), 20), 'entered');
    confirmed(e, 'hook');
    expect(e.phase).toBe('entered');
  });
});

describe('a paste an earlier daemon left in the pane', () => {
  it('found in the box: submitted as it is, from the pane it is in, flagged as that copy was', () => {
    const d = found(committed(true), pane, 40, false);
    expect(d).toEqual({ phase: 'pasted', record, timing, typed: true, redelivered: false, pane, pastedAt: 40 });
    expect(found(committed(true), pane, 40, true)).toMatchObject({ phase: 'pasted', redelivered: true });
  });

  it('cleared by an Enter alone: still to be pasted, flagged, with nothing left before it', () => {
    expect(cleared(committed(true))).toEqual({ ...committed(true), leftover: false });
    expect(inPhase(pasted(inPhase(cleared(committed(true)), 'committed'), pane, 50), 'pasted').redelivered).toBe(true);
  });
});

describe('a failed step', () => {
  it('a paste that failed before anything may have been typed stays untyped', () => {
    expect(failed(committed(false), { maybeTyped: false })).toEqual(committed(false));
  });

  it('a paste that may have reached the pane marks the delivery typed, for good', () => {
    const d = failed(committed(false), { maybeTyped: true });
    expect(d).toMatchObject({ phase: 'committed', typed: true, leftover: true });
    expect(failed(d, { maybeTyped: false })).toMatchObject({ phase: 'committed', typed: true });
    expect(inPhase(pasted(inPhase(d, 'committed'), pane, 30), 'pasted').redelivered).toBe(true);
  });

  it('a lost paste goes back to committed, typed, and forgets the pane it went to', () => {
    // Lost to that pane: nothing of it is left there to submit.
    const expected = { phase: 'committed', record, timing, typed: true, leftover: false };
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

  it('a confirmed delivery, or one not saved yet, never goes back to be pasted', () => {
    const c = confirmed(enteredOnce(), 'screen');
    expect(failed(c, { maybeTyped: true, pasteLost: true })).toBe(c);
    const a = begin(record, timing, { typed: false, saved: false });
    expect(failed(a, { maybeTyped: true, pasteLost: true })).toBe(a);
  });
});
