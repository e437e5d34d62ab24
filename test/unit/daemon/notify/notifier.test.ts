/** The notifier's queue and sending (daemon/notify/notifier.ts), with a fake clock and fake sinks. */
import { describe, expect, it } from 'vitest';
import type { NotifySinkConfig } from '../../../../src/config/config.js';
import type { NotifyPayload } from '../../../../src/core/notify/payload.js';
import type { Attempt } from '../../../../src/core/notify/retry.js';
import { silent } from '../../../../src/lib/log.js';
import { Notifier, QUEUE_MAX } from '../../../../src/daemon/notify/notifier.js';
import { signature } from '../../../../src/daemon/notify/send.js';

const sink = (over: Partial<NotifySinkConfig> & { name: string }): NotifySinkConfig => ({
  webhook: 'http://127.0.0.1:9/',
  events: ['blocked', 'finished', 'stalled', 'budget', 'loop', 'error'],
  cooldown_s: 300,
  timeout_s: 10,
  ...over,
});

function world(sinks: NotifySinkConfig[], send: (s: NotifySinkConfig, p: NotifyPayload) => Promise<Attempt>) {
  let now = 1_000_000;
  const sleeps: number[] = [];
  const n = new Notifier({
    config: {
      notify: sinks,
      host: 'm1',
      file: '/p/config.json',
      baseDir: '/p',
      messageDir: '/p/messages',
      bus: { kind: 'files' },
    },
    log: silent,
    now: () => now,
    send,
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
    record: () => {},
  });
  return { n, sleeps, advance: (ms: number) => (now += ms) };
}

const settle = () => new Promise((r) => setTimeout(r, 10));

describe('the notifier', () => {
  it('sends each sink only the events it lists, as one JSON event named for the conversation', async () => {
    const got: Array<[string, NotifyPayload]> = [];
    const { n } = world([sink({ name: 'all' }), sink({ name: 'blocked only', events: ['blocked'] })], async (s, p) => {
      got.push([s.name!, p]);
      return { kind: 'sent' };
    });
    n.observe('delivered', { id: 'msg_0001' });
    n.observe('finished', { reason: 'max_turns' });
    n.observe('blocked', { agent: 'a', kind: 'permission', question: 'Bash(ls)' });
    await settle();
    expect(got.map(([s, p]) => `${s}:${p.event}`).sort()).toEqual([
      'all:blocked',
      'all:finished',
      'blocked only:blocked',
    ]);
    expect(got[0]![1]).toMatchObject({ conversation: 'p', host: 'm1', event: 'finished', count: 1 });
    expect(n.records().map((r) => [r.label, r.sent, r.last_success?.event])).toEqual([
      ['all', 2, 'blocked'],
      ['blocked only', 1, 'blocked'],
    ]);
  });

  it('retries a failing sink with backoff for a bounded time, records the failure, and goes on to the next', async () => {
    let calls = 0;
    const { n, sleeps } = world([sink({ name: 'w' })], async (_s, p) => {
      calls++;
      return p.event === 'stalled' ? { kind: 'sent' } : { kind: 'failed', error: 'HTTP 500', retry: true };
    });
    n.observe('finished', { reason: 'ended' });
    n.observe('stalled', { agent: 'b', nudges: 3 });
    await settle();
    expect(sleeps).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000]);
    expect(calls).toBe(9); // 8 attempts of `finished`, then `stalled`
    expect(n.records()[0]).toMatchObject({
      failed: 1,
      sent: 1,
      last_failure: { event: 'finished', error: 'HTTP 500' },
    });
  });

  it('a refusal that will repeat (HTTP 404, a command that failed) is not retried', async () => {
    const { n, sleeps } = world([sink({ name: 'w' })], async () => ({
      kind: 'failed',
      error: 'HTTP 404',
      retry: false,
    }));
    n.observe('finished', { reason: 'ended' });
    await settle();
    expect(sleeps).toEqual([]);
    expect(n.records()[0]).toMatchObject({ failed: 1 });
  });

  it('observe returns at once while a sink hangs; another sink is not held by it; the hung queue is bounded', async () => {
    const fast: string[] = [];
    const { n } = world([sink({ name: 'hangs', cooldown_s: 0 }), sink({ name: 'fast', cooldown_s: 0 })], (s) => {
      if (s.name === 'hangs') return new Promise<Attempt>(() => {});
      fast.push('x');
      return Promise.resolve({ kind: 'sent' });
    });
    const t0 = performance.now();
    for (let i = 0; i < QUEUE_MAX + 20; i++) n.observe('stalled', { agent: 'b', nudges: i });
    expect(performance.now() - t0).toBeLessThan(200);
    await settle();
    // Each sink: one in flight, QUEUE_MAX waiting, the rest of a burst this size dropped and counted.
    expect(fast.length).toBe(QUEUE_MAX + 1);
    expect(n.records()[0]).toMatchObject({ dropped: 19, sent: 0 });
    expect(n.records()[1]).toMatchObject({ dropped: 19, sent: QUEUE_MAX + 1 });
  });

  it('folds repeats within the cooldown and tells them once it has passed, with how many', async () => {
    const got: NotifyPayload[] = [];
    const { n, advance } = world([sink({ name: 'w', cooldown_s: 1 })], async (_s, p) => {
      got.push(p);
      return { kind: 'sent' };
    });
    n.observe('blocked', { agent: 'a', kind: 'permission' });
    n.observe('blocked', { agent: 'a', kind: 'permission' });
    n.observe('blocked', { agent: 'a', kind: 'permission' });
    await settle();
    expect(got.map((p) => p.count)).toEqual([1]);
    advance(1000);
    // The notifier's own timer is real (its clock is faked): wait for what it sends, not for a second.
    for (const until = Date.now() + 5000; got.length < 2 && Date.now() < until; ) await settle();
    expect(got.map((p) => p.count)).toEqual([1, 2]);
    expect(n.records()[0]).toMatchObject({ folded: 2, sent: 2 });
  });

  it('troubles no event carries: a lease lost, a database away', async () => {
    const got: NotifyPayload[] = [];
    const { n } = world([sink({ name: 'w' })], async (_s, p) => {
      got.push(p);
      return { kind: 'sent' };
    });
    n.trouble('database_away', { error: 'refused' });
    await settle();
    expect(got[0]).toMatchObject({ event: 'error', error: 'database_away', details: { error: 'refused' } });
    expect(got[0]!.message).toContain('database');
  });
});

describe('the webhook signature', () => {
  it('is sha256= and the hex HMAC-SHA256 of the body (a known vector)', () => {
    // RFC 4231 test case 2.
    expect(signature('Jefe', 'what do ya want for nothing?')).toBe(
      'sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
  });
});
