/** The pure part of notifications (docs/protocol.md §12): events → happenings, the cooldown, retries, payloads. */
import { describe, expect, it } from 'vitest';
import { Cooldown } from '../../../../src/core/notify/cooldown.js';
import { type Happening, observe } from '../../../../src/core/notify/happening.js';
import { ntfyBody, ntfyTarget, payloadOf, testPayload } from '../../../../src/core/notify/payload.js';
import { attemptOf, retryDelay, SINK_RETRY } from '../../../../src/core/notify/retry.js';

const happened = (name: string, fields: Record<string, unknown> = {}): Happening => {
  const o = observe(name, fields);
  if (o?.kind !== 'happened') throw new Error(`${name}: no happening`);
  return o.happening;
};

describe('bus events as happenings', () => {
  it('maps each event a person is told about, and nothing else', () => {
    expect(happened('blocked', { agent: 'a', kind: 'permission', question: 'Bash(ls)' })).toMatchObject({
      event: 'blocked',
      agent: 'a',
      details: { question: 'Bash(ls)' },
    });
    expect(happened('finished', { reason: 'max_turns' })).toMatchObject({ event: 'finished', agent: null });
    expect(happened('stalled', { agent: 'b', nudges: 3 })).toMatchObject({ event: 'stalled', agent: 'b' });
    expect(happened('budget', { agent: 'b' })).toMatchObject({ event: 'budget', agent: 'b' });
    expect(happened('loop', { evidence: 'x' })).toMatchObject({ event: 'loop', agent: null });
    expect(happened('config_rejected', { error: 'bad' })).toMatchObject({ event: 'error', error: 'config_rejected' });
    // A pause for the budget or a loop comes with its own event: `paused` alone would tell it twice.
    for (const name of ['delivered', 'paused', 'nudged', 'started', 'stopped', 'resumed'])
      expect(observe(name, { reason: 'budget' })).toBeNull();
    expect(observe('unblocked', { agent: 'a' })).toEqual({ kind: 'over', event: 'blocked', agent: 'a' });
    expect(observe('answered', { agent: 'a', choice: 'Yes' })).toEqual({ kind: 'over', event: 'blocked', agent: 'a' });
  });
});

describe('the cooldown: one notification per happening', () => {
  const blockedA = happened('blocked', { agent: 'a' });
  const blockedB = happened('blocked', { agent: 'b' });

  it('tells the first at once, folds repeats for the same agent, and tells them once when the cooldown passes', () => {
    const c = new Cooldown(300_000);
    expect(c.offer(blockedA, 0)).toMatchObject({ count: 1, at: 0 });
    expect(c.offer(blockedA, 10_000)).toBeNull();
    expect(c.offer(blockedA, 20_000)).toBeNull();
    // Another agent is another happening.
    expect(c.offer(blockedB, 30_000)).toMatchObject({ count: 1 });
    expect(c.nextDue()).toBe(300_000);
    expect(c.due(299_999)).toEqual([]);
    expect(c.due(300_000)).toEqual([{ happening: blockedA, at: 20_000, count: 2, since: 10_000 }]);
    expect(c.due(300_001)).toEqual([]); // told once
    expect(c.nextDue()).toBeNull();
    // The trailing one started a new cooldown.
    expect(c.offer(blockedA, 400_000)).toBeNull();
  });

  it('a fold nobody collected is told with the next happening after the cooldown', () => {
    const c = new Cooldown(1000);
    c.offer(blockedA, 0);
    c.offer(blockedA, 500);
    expect(c.offer(blockedA, 5000)).toMatchObject({ count: 2, since: 500, at: 5000 });
  });

  it('a repeat that is over before it is told (the dialog answered) is dropped', () => {
    const c = new Cooldown(1000);
    c.offer(blockedA, 0);
    c.offer(blockedA, 100);
    c.over('blocked', 'a');
    expect(c.due(2000)).toEqual([]);
  });

  it('cooldown 0 tells every happening', () => {
    const c = new Cooldown(0);
    expect(c.offer(blockedA, 0)).not.toBeNull();
    expect(c.offer(blockedA, 0)).not.toBeNull();
  });

  it('two different troubles are two errors', () => {
    const c = new Cooldown(1000);
    expect(c.offer({ event: 'error', agent: null, error: 'lease_lost', details: {} }, 0)).not.toBeNull();
    expect(c.offer({ event: 'error', agent: null, error: 'database_away', details: {} }, 0)).not.toBeNull();
  });
});

describe('retries', () => {
  it('doubles from 1 s to 30 s and gives up past 2 min', () => {
    const delays: number[] = [];
    let elapsed = 0;
    for (let failures = 1; ; failures++) {
      const d = retryDelay(SINK_RETRY, failures, elapsed);
      if (d === null) break;
      delays.push(d);
      elapsed += d;
    }
    expect(delays).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000]);
    expect(elapsed).toBeLessThanOrEqual(SINK_RETRY.totalMs);
  });

  it('retries what may pass (5xx, 408, 429), not a refusal that will repeat', () => {
    expect(attemptOf(204)).toEqual({ kind: 'sent', status: 204 });
    expect(attemptOf(500)).toMatchObject({ kind: 'failed', retry: true });
    expect(attemptOf(429)).toMatchObject({ retry: true });
    expect(attemptOf(404)).toMatchObject({ kind: 'failed', retry: false, error: 'HTTP 404' });
  });
});

describe('payloads', () => {
  const ctx = { conversation: 'proj', host: 'm1', url: 'http://127.0.0.1:7420/' };

  it('one JSON event: what happened, text for a person, and how many it stands for', () => {
    const p = payloadOf(
      {
        happening: happened('blocked', { agent: 'a', kind: 'permission', question: 'Bash: rm -rf build' }),
        at: Date.UTC(2026, 0, 1, 3, 4),
        count: 3,
        since: Date.UTC(2026, 0, 1, 3, 0),
      },
      ctx,
    );
    expect(p).toMatchObject({
      event: 'blocked',
      conversation: 'proj',
      host: 'm1',
      agent: 'a',
      at: '2026-01-01T03:04:00.000Z',
      since: '2026-01-01T03:00:00.000Z',
      count: 3,
      title: 'baton proj: a needs you',
      message: 'a waits at a permission: Bash: rm -rf build (3 times since 03:00 UTC)',
      url: 'http://127.0.0.1:7420/',
    });
    const budget = payloadOf(
      {
        happening: happened('budget', { budget: 'agents.b.max_cost_usd', agent: 'b', spent_usd: 2.5, max_usd: 2 }),
        at: 0,
        count: 1,
        since: 0,
      },
      ctx,
    );
    expect(budget.message).toBe("Paused: b's turns cost $2.50 of a budget of $2.00; baton resume goes on");
    const loop = payloadOf(
      {
        happening: happened('loop', { kind: 'thanks', evidence: ['msg_0004', 'msg_0005'] }),
        at: 0,
        count: 1,
        since: 0,
      },
      ctx,
    );
    expect(loop.message).toBe('Paused: no progress in msg_0004, msg_0005; baton resume goes on');
    const finished = payloadOf(
      { happening: happened('finished', { reason: 'max_turns' }), at: 0, count: 1, since: 0 },
      ctx,
    );
    expect(finished.message).toBe('The conversation finished: max_turns');
  });

  it("ntfy's own JSON: the topic from the URL, priority and tags by event, click to the dashboard", () => {
    expect(ntfyTarget('https://ntfy.sh/my-topic')).toEqual({ post: 'https://ntfy.sh/', topic: 'my-topic' });
    expect(ntfyTarget('http://127.0.0.1:8080/sub/path/t')).toEqual({
      post: 'http://127.0.0.1:8080/sub/path/',
      topic: 't',
    });
    expect(ntfyTarget('https://ntfy.sh/')).toBeNull();
    const p = payloadOf({ happening: happened('stalled', { agent: 'b', nudges: 3 }), at: 0, count: 1, since: 0 }, ctx);
    expect(ntfyBody(p, 'my-topic', ctx.url)).toEqual({
      topic: 'my-topic',
      title: 'baton proj: b stalled',
      message: 'b stayed silent after 3 reminders',
      priority: 4,
      tags: ['hourglass'],
      click: 'http://127.0.0.1:7420/',
    });
    expect(ntfyBody(testPayload(ctx, 0), 't', null)).toMatchObject({ priority: 2, tags: ['test_tube'] });
    expect(ntfyBody(testPayload(ctx, 0), 't', null)).not.toHaveProperty('click');
  });
});
