/**
 * A message's own deadlines (docs/protocol.md §3, §9), with recorder agents on a private tmux server: its
 * response_deadline_s sets its receiver's reminders (instead of turns.timeout_s), requires_response: false
 * means none, and a message still held in its folder when its expires_at passes goes to rejected/ with
 * reason "expired" — nothing dropped silently.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { Project, readRecorder, waitFor } from '../helpers/harness.js';

let p: Project | undefined;
afterEach(async () => {
  await p?.stop();
  p = undefined;
});

const reminders = (log: string) => readRecorder(log).pastes.filter((t) => t.startsWith('[baton] reminder'));

async function two(turns: Record<string, unknown>) {
  p = new Project({
    agents: { a: { kind: 'generic', command: 'x' }, b: { kind: 'generic', command: 'x' } },
    directions: undefined,
    turns,
    delivery: { enter_delay_ms: 0 },
  });
  const logs = { a: await p.recorder('a'), b: await p.recorder('b') };
  await p.startDaemon();
  return logs;
}

describe('deadlines on a message', () => {
  it("response_deadline_s: the receiver's reminders follow the message's own deadline, not turns.timeout_s", async () => {
    const logs = await two({ timeout_s: 0, max_nudges: 1 });
    const sent = Date.now();
    p!.send('a_to_b', 'urgent.json', {
      content: 'answer within a second',
      requires_response: true,
      response_deadline_s: 1,
    });
    await waitFor('a reminder to b', () => reminders(logs.b).length === 1, 15_000);
    expect(Date.now() - sent).toBeGreaterThanOrEqual(1000);
    expect(reminders(logs.b)[0]).toContain('msg_0001 is waiting for your reply');
    await waitFor(
      'the nudged event (written after the paste)',
      () => p!.events().some((e) => e.event === 'nudged'),
      5000,
    );
    expect(p!.events().filter((e) => e.event === 'nudged')).toHaveLength(1);
  }, 30_000);

  it('requires_response: false: no reminder for that turn, though turns.timeout_s would send one', async () => {
    const logs = await two({ timeout_s: 1, max_nudges: 1 });
    p!.send('a_to_b', 'fyi.json', { content: 'for your information', requires_response: false });
    await waitFor('delivered', () => p!.archive()[0]?.delivered_at, 10_000);
    await new Promise((r) => setTimeout(r, 2500));
    expect(reminders(logs.b)).toEqual([]);
    // The next turn has no deadline of its own: the config's timeout applies again.
    p!.send('b_to_a', 'reply.json', { content: 'thanks' });
    await waitFor('a reminder to a', () => reminders(logs.a).length === 1, 15_000);
  }, 30_000);

  it('expires_at: a message still held when it passes goes to rejected/ with reason "expired"; a later one is delivered', async () => {
    await two({});
    const soon = new Date(Date.now() + 1500).toISOString();
    // b writes out of turn (a holds it): held, then expired.
    p!.send('b_to_a', 'stale.json', { content: 'too late', expires_at: soon });
    await waitFor('held', () => p!.events().some((e) => e.event === 'held'), 10_000);
    await waitFor('rejected as expired', () => p!.events().find((e) => e.event === 'rejected'), 15_000);
    const rejected = p!.events().find((e) => e.event === 'rejected')!;
    expect(String(rejected.reason)).toMatch(/^expired: /);
    expect(p!.ls('rejected')).toContain('stale.json');
    const note = JSON.parse(readFileSync(p!.path('rejected', 'stale.json.error.json'), 'utf8')) as {
      reason?: string;
      error?: string;
    };
    expect(JSON.stringify(note)).toContain('expired');
    // Nothing else was touched: a's message goes, and b's next one too.
    p!.send('a_to_b', 'hello.json', { content: 'hello', expires_at: new Date(Date.now() + 60_000).toISOString() });
    await waitFor('delivered', () => p!.archive()[0]?.delivered_at, 10_000);
    expect(p!.archive().map((r) => r.content)).toEqual(['hello']);
  }, 30_000);
});
