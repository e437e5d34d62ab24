import { describe, expect, it } from 'vitest';
import { formatId } from '../../../src/core/ids.js';
import {
  isAcknowledgement,
  LOOP_DEFAULTS,
  loopCheck,
  similarity,
  type LoopVerdict,
  type Said,
} from '../../../src/core/loop.js';
import { LOOPS, PROGRESS } from './loop-corpus.js';

const said = (lines: string[]): Said[] =>
  lines.map((content, i) => ({ id: formatId(i + 1), sender: i % 2 ? 'b' : 'a', content }));

/** The verdict after each message, as the daemon looks after each delivery (the last 2 × window). */
function run(lines: string[], since = 0, rules = LOOP_DEFAULTS): { at: number; verdict: LoopVerdict }[] {
  const all = said(lines);
  return all.map((_, i) => ({
    at: i + 1,
    verdict: loopCheck(all.slice(Math.max(0, i + 1 - 2 * rules.window), i + 1), since, rules),
  }));
}
const firstTrip = (lines: string[], since = 0) => run(lines, since).find((r) => r.verdict.loop);

describe('similarity', () => {
  it('is 1 for the same words, 0 for none shared, and numbers count', () => {
    expect(similarity('Please re-run the tests.', 'please RE-RUN the tests')).toBe(1);
    expect(similarity('alpha beta', 'gamma delta')).toBe(0);
    expect(similarity('message 3 from a', 'message 5 from a')).toBeLessThan(0.5);
  });
  it('a text without words is compared whole', () => {
    expect(similarity('✓', '✓')).toBe(1);
    expect(similarity('✓', '✗')).toBe(0);
  });
});

describe('isAcknowledgement', () => {
  it('short thanks and sign-offs are; questions, code and long messages are not', () => {
    expect(isAcknowledgement('Thanks, you too! Talk soon.')).toBe(true);
    expect(isAcknowledgement("You're welcome! Glad it helped.")).toBe(true);
    expect(isAcknowledgement('Thanks! Could you also check the docs?')).toBe(false);
    expect(isAcknowledgement('Thanks, ran `npm test`: green.')).toBe(false);
    expect(isAcknowledgement(`Thanks. ${'The parser now handles every case we listed. '.repeat(4)}`)).toBe(false);
    expect(isAcknowledgement('Item 4: was the last CI run green')).toBe(false);
  });
});

describe('loopCheck', () => {
  for (const [name, lines] of Object.entries(PROGRESS))
    it(`never trips on a conversation that makes progress: ${name}`, () => {
      expect(run(lines).filter((r) => r.verdict.loop)).toEqual([]);
    });

  for (const [name, lines] of Object.entries(LOOPS))
    it(`pauses a loop within its window: ${name}`, () => {
      const trip = firstTrip(lines);
      // The loop starts at the first message (ping-pong) or at the first repeat (message 3): paused by the
      // window's end after it.
      expect(trip?.at).toBeLessThanOrEqual(2 + LOOP_DEFAULTS.window);
      expect(trip?.verdict).toMatchObject({ loop: true });
      if (trip?.verdict.loop) expect(trip.verdict.evidence).toHaveLength(LOOP_DEFAULTS.window);
    });

  it('names the kind and the window as evidence', () => {
    expect(firstTrip(LOOPS['thank-you ping-pong']!)?.verdict).toEqual({
      loop: true,
      kind: 'acknowledgements',
      evidence: ['msg_0001', 'msg_0002', 'msg_0003', 'msg_0004'],
    });
    expect(firstTrip(LOOPS['the same message again']!)?.verdict).toEqual({
      loop: true,
      kind: 'repeats',
      evidence: ['msg_0003', 'msg_0004', 'msg_0005', 'msg_0006'],
    });
  });

  it('after a resume, the window lies past what the person saw: not the same window again', () => {
    const lines = LOOPS['thank-you ping-pong']!;
    // Paused at msg_0004, resumed: the next window is msg_0005..msg_0008, never one reaching back before it.
    expect(firstTrip(lines, 4)?.at).toBe(8);
    expect(run(lines.slice(0, 7), 4).filter((r) => r.verdict.loop)).toEqual([]);
  });

  it('a window of 3 trips sooner; fewer messages than the window never trip', () => {
    const lines = LOOPS['thank-you ping-pong']!;
    const all = said(lines);
    expect(loopCheck(all.slice(0, 3), 0, { ...LOOP_DEFAULTS, window: 3 })).toMatchObject({ loop: true });
    expect(loopCheck(all.slice(0, 3), 0, LOOP_DEFAULTS)).toEqual({ loop: false });
  });
});

/**
 * The measurement behind LOOP_DEFAULTS (docs/protocol.md §12): for each conversation, the highest
 * similarity of a message to one of the 2 × window before it, and the longest run of acknowledgements.
 * Printed, and held to: progress stays below the threshold and under the window, loops reach them.
 */
describe('the measured margins', () => {
  const measure = (lines: string[]) => {
    let maxSim = 0;
    let run = 0;
    let maxAcks = 0;
    let minRepeat = 1;
    lines.forEach((m, i) => {
      let best = 0;
      for (const e of lines.slice(Math.max(0, i - LOOP_DEFAULTS.window), i)) best = Math.max(best, similarity(e, m));
      maxSim = Math.max(maxSim, best);
      if (i >= 2) minRepeat = Math.min(minRepeat, best);
      run = isAcknowledgement(m) ? run + 1 : 0;
      maxAcks = Math.max(maxAcks, run);
    });
    return { maxSim: Math.round(maxSim * 100) / 100, minRepeat: Math.round(minRepeat * 100) / 100, maxAcks };
  };
  it('progress peaks well under the threshold and the window', () => {
    const rows = Object.entries(PROGRESS).map(([name, lines]) => ({ name, ...measure(lines) }));
    console.table(rows);
    for (const r of rows) {
      expect(r.maxSim, r.name).toBeLessThanOrEqual(LOOP_DEFAULTS.similarity - 0.1);
      expect(r.maxAcks, r.name).toBeLessThanOrEqual(LOOP_DEFAULTS.window - 2);
    }
  });
  it('loops reach them', () => {
    const rows = Object.entries(LOOPS).map(([name, lines]) => ({ name, ...measure(lines) }));
    console.table(rows);
    for (const r of rows)
      if (r.maxAcks < LOOP_DEFAULTS.window)
        expect(r.minRepeat, r.name).toBeGreaterThanOrEqual(LOOP_DEFAULTS.similarity + 0.1);
  });
});
