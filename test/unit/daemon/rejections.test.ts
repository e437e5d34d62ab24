/**
 * daemon/rejections.ts: the sender of a rejected message is told why, in one notice for what gathered
 * within a second, one notice every ten seconds at most, never while a delivery is under way, once (a
 * notice that could not be typed waits and is typed later, its cause logged once). Against a fake clock, a bus that hands over rejections, and a
 * typeInto that records what it was asked to type.
 */
import { describe, expect, it } from 'vitest';
import { FencedError, type Rejected } from '../../../src/bus/bus.js';
import { parseConfig } from '../../../src/config/config.js';
import type { State } from '../../../src/core/state.js';
import { GATHER_MS, noticeText, RejectionNotices, SPACING_MS } from '../../../src/daemon/rejections.js';
import { log } from '../../../src/lib/log.js';
import { fakeDeliveryBus, recordingLog } from './fake-delivery-bus.js';

const config = parseConfig(
  {
    agents: { a: { kind: 'generic', command: 'x' }, b: { kind: 'generic', command: 'x' } },
    directions: { a_to_b: ['a', 'b'], b_to_a: ['b', 'a'] },
  },
  '/p/config.json',
  '/p',
  { BATON_HOST: 'here' },
);
const [aToB, bToA] = config.directions as [Rejected['direction'], Rejected['direction']];

function world() {
  let now = 0;
  let rejected: Rejected[] = [];
  const typed: Array<{ agent: string; text: string }> = [];
  const wakes: number[] = [];
  let answer: string | null | Error = null;
  const { log: logger, lines } = recordingLog(log);
  const bus = fakeDeliveryBus({
    takeRejected: () => rejected.splice(0),
    state: () => ({ current_turn: 'a', last_message_id: null, message_counter: 0, pending_reply_to: null }) as State,
  });
  const notices = new RejectionNotices({
    config,
    bus,
    log: logger,
    typeInto: async (agent, text) => {
      if (answer instanceof Error) throw answer;
      if (answer === null) typed.push({ agent, text });
      return answer;
    },
    wakeIn: (ms) => void wakes.push(ms),
    now: () => now,
  });
  return {
    notices,
    typed,
    wakes,
    lines,
    reject: (...r: Rejected[]) => void (rejected = [...rejected, ...r]),
    later: (ms: number) => void (now += ms),
    answer: (a: string | null | Error) => void (answer = a),
  };
}

describe('telling a sender its message was rejected', () => {
  it('gathers for a second, then one notice names what gathered; a wake-up is asked for then', async () => {
    const w = world();
    w.reject({ direction: aToB, file: 'one.json', reason: 'content: must not be empty' });
    expect(await w.notices.tell(true)).toBe(0); // gathering
    expect(w.wakes).toEqual([GATHER_MS + 5]);
    w.later(500);
    w.reject({ direction: aToB, file: 'two.json', reason: '5000 bytes is over inbox.max_bytes (2000)' });
    expect(await w.notices.tell(true)).toBe(0);
    w.later(GATHER_MS);
    expect(await w.notices.tell(true)).toBe(1);
    expect(w.typed).toEqual([
      {
        agent: 'a',
        text: [
          '[baton] 2 of your messages were not delivered:',
          '[baton] - your message one.json to b: content: must not be empty',
          '[baton] - your message two.json to b: 5000 bytes is over inbox.max_bytes (2000)',
          '[baton] it is still your turn; write a new message.',
        ].join('\n'),
      },
    ]);
    // Told once: nothing more at the next passes.
    w.later(GATHER_MS);
    expect(await w.notices.tell(true)).toBe(0);
    expect(w.typed).toHaveLength(1);
  });

  it('one notice every ten seconds at most: what is rejected meanwhile goes in the next', async () => {
    const w = world();
    w.reject({ direction: aToB, file: 'one.json', reason: 'r1' });
    await w.notices.tell(true);
    w.later(GATHER_MS);
    expect(await w.notices.tell(true)).toBe(1);
    w.later(2000);
    w.reject(
      { direction: aToB, file: 'two.json', reason: 'r2' },
      { direction: aToB, file: 'three.json', reason: 'r3' },
    );
    await w.notices.tell(true);
    expect(w.wakes.at(-1)).toBe(SPACING_MS - 2000 + 5); // asked to look again when it is due
    w.later(GATHER_MS);
    expect(await w.notices.tell(true)).toBe(0);
    w.later(SPACING_MS - 2000 - GATHER_MS);
    expect(await w.notices.tell(true)).toBe(1);
    expect(w.typed.map((t) => t.text.split('\n')[0])).toEqual([
      '[baton] your message one.json to b was not delivered: r1',
      '[baton] 2 of your messages were not delivered:',
    ]);
  });
});

describe('when a notice is typed', () => {
  it('never while a delivery is under way: what is taken from the bus waits for a free pass', async () => {
    const w = world();
    w.reject({ direction: bToA, file: 'x.json', reason: 'expired: its expires_at passed' });
    expect(await w.notices.tell(false)).toBe(0); // taken from the bus: it gathers from now
    w.later(GATHER_MS * 3);
    expect(await w.notices.tell(false)).toBe(0);
    expect(w.typed).toEqual([]);
    expect(await w.notices.tell(true)).toBe(1);
    expect(w.typed[0]).toEqual({
      agent: 'b',
      text:
        '[baton] your message x.json to a was not delivered: expired: its expires_at passed\n' +
        '[baton] nothing was delivered for it; write it again, corrected, if it still matters.',
    });
  });

  it('a notice that cannot be typed now waits, its cause logged once; a fenced daemon is not swallowed', async () => {
    const w = world();
    w.reject({ direction: aToB, file: 'x.json', reason: 'r' });
    await w.notices.tell(true);
    w.later(GATHER_MS);
    w.answer('its input box holds text');
    expect(await w.notices.tell(true)).toBe(0);
    expect(await w.notices.tell(true)).toBe(0);
    expect(w.lines.filter((l) => l.includes('not told yet'))).toHaveLength(1);
    w.answer(new Error('the database is away'));
    expect(await w.notices.tell(true)).toBe(0);
    w.answer(new FencedError('the lease was taken over'));
    await expect(w.notices.tell(true)).rejects.toBeInstanceOf(FencedError);
    w.answer(null);
    expect(await w.notices.tell(true)).toBe(1);
    expect(w.typed.map((t) => t.agent)).toEqual(['a']);
  });

  it('an automatic reply refused before it was stored is told the same way', async () => {
    const w = world();
    w.notices.add('a', {
      what: 'your final reply',
      to: 'b',
      reason: '1200000 bytes is over inbox.max_bytes (1048576)',
    });
    w.notices.add('nobody', { what: 'x', to: 'b', reason: 'r' }); // not an agent: ignored
    w.later(GATHER_MS);
    expect(await w.notices.tell(true)).toBe(1);
    expect(w.typed[0]!.text).toMatch(/^\[baton\] your final reply to b was not delivered: 1200000 bytes/);
  });
});

describe('the notice text', () => {
  const u = (i: number) => ({ what: `your message m${i}.json`, to: 'b', reason: `reason ${i}` });
  it('names the last five and counts the rest, the dropped ones included', () => {
    const text = noticeText([1, 2, 3, 4, 5, 6, 7].map(u), 3, false);
    expect(text.split('\n')).toEqual([
      '[baton] 10 of your messages were not delivered:',
      '[baton] - your message m3.json to b: reason 3',
      '[baton] - your message m4.json to b: reason 4',
      '[baton] - your message m5.json to b: reason 5',
      '[baton] - your message m6.json to b: reason 6',
      '[baton] - your message m7.json to b: reason 7',
      '[baton] - and 5 more (baton status counts the rejected ones)',
      '[baton] nothing was delivered for it; write it again, corrected, if it still matters.',
    ]);
  });

  it("keeps a file's name and a reason to one line of text: no control bytes, no line breaks, cut when long", () => {
    const text = noticeText(
      [{ what: 'your message \u001b[31mred\u0007.json', to: 'b', reason: `line one\nline two ${'x'.repeat(400)}` }],
      0,
      true,
    );
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
    const [first] = text.split('\n');
    expect(first).toMatch(/^\[baton\] your message \[31mred\.json to b was not delivered: line one line two x+…$/);
    expect(first!.length).toBeLessThan(400);
  });
});
