/**
 * One clock per conversation (docs/protocol.md §10, "Time"): a machine whose clock is 2 h ahead measures
 * durations, deadlines and expiry with the database's time, and writes its timestamps with it. beta runs
 * with its wall clock moved 2 h ahead (test/fixtures/skew-clock.cjs through NODE_OPTIONS: Date and
 * performance.timeOrigin in every node process of that machine — its daemon, its agent, its `baton post`);
 * alpha and the database keep the real time. Before, beta ended a seconds-old conversation by
 * max_duration_s, reminded its agent at once, and refused as expired a message whose expires_at was
 * 30 min away.
 */
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { Project, readRecorder, ROOT, waitFor } from '../helpers/harness.js';
import { archived, machinesConfig, query, useMachines } from '../helpers/machines.js';
import { usePostgres } from '../helpers/postgres.js';

const server = usePostgres();
const machine = useMachines();
let n = 0;
const HOURS_2 = 2 * 3600_000;
/** Every node process started with this environment runs 2 h ahead. */
const TWO_HOURS_AHEAD = {
  NODE_OPTIONS: `--require ${join(ROOT, 'test', 'fixtures', 'skew-clock.cjs')}`,
  SKEW_CLOCK_MS: String(HOURS_2),
};

/** alpha on the real time (its daemon starts the conversation), beta 2 h ahead. */
async function twoClocks(turns: Record<string, unknown>, beta: { reply: boolean }) {
  const conv = `clock-${process.pid}-${n++}`;
  const config = machinesConfig(server.url, conv, { turns });
  const a = machine('alpha', config);
  const b = machine('beta', config);
  Object.assign(b.env, TWO_HOURS_AHEAD);
  const logs = { claude1: await a.recorder('claude1', { reply: true }), claude2: await b.recorder('claude2', beta) };
  await a.daemon();
  await b.daemon();
  return { conv, a, b, logs };
}

const state = async (conv: string) =>
  (
    await query<{ state: Record<string, unknown> }>(
      server.url,
      'SELECT state FROM baton.conversations WHERE name = $1',
      [conv],
    )
  )[0]!.state;

/** A timestamp the conversation stored: UTC, and on the database's (here: the real) time, not beta's. */
function onTheRealClock(iso: unknown, what: string): void {
  expect(iso, what).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  expect(Math.abs(Date.parse(String(iso)) - Date.now()), `${what}: ${String(iso)}`).toBeLessThan(5 * 60_000);
}

describe('one clock per conversation (PostgreSQL bus)', () => {
  it('a machine 2 h ahead neither ends a seconds-old conversation by max_duration_s nor reminds early', async () => {
    const { conv, a, logs } = await twoClocks({ max_duration_s: 600, timeout_s: 60, max_nudges: 1 }, { reply: true });
    a.send('c1_to_c2', 'opening.json', { content: 'ping' });
    const delivered = async () => (await archived(server.url, conv)).filter((r) => r.delivered_at).length;
    await waitFor(
      '6 delivered (or the end)',
      async () => (await delivered()) >= 6 || (await state(conv)).finished,
      60_000,
    );
    await sleep(1500); // a conductor that measured with beta's clock has acted by now
    const s = await state(conv);
    expect(s.finished, JSON.stringify(s)).toBeUndefined();
    expect(s.nudges ?? 0).toBe(0);
    expect(readRecorder(logs.claude2).typed.filter((t) => /reminder|has finished/.test(t))).toEqual([]);
    // beta's clock really is 2 h ahead: its agent's `baton post` dated its replies so (the sender's own
    // `timestamp`, kept as written).
    const replies = (await archived(server.url, conv)).filter((r) => r.sender === 'claude2');
    expect(replies.length).toBeGreaterThan(0);
    for (const r of replies) {
      const ahead = Date.parse((r as unknown as { timestamp: string }).timestamp) - Date.now();
      expect(Math.abs(ahead - HOURS_2), `${r.id} timestamp`).toBeLessThan(5 * 60_000);
    }
    // What beta wrote is on the database's time: its turn steps' turn_started_at, its stamps, its events.
    onTheRealClock(s.started_at, 'started_at');
    onTheRealClock(s.turn_started_at, 'turn_started_at');
    // (The ping-pong goes on meanwhile: a record archived but not yet stamped has no delivered_at yet.)
    for (const r of (await archived(server.url, conv)).filter((x) => x.delivered_at)) {
      onTheRealClock(r.delivered_at, `${r.id} delivered_at (by ${r.receiver === 'claude2' ? 'beta' : 'alpha'})`);
      onTheRealClock((r as unknown as { received_at: string }).received_at, `${r.id} received_at`);
    }
    const events = await query<{ body: { ts: string; event: string } }>(
      server.url,
      'SELECT body FROM baton.events WHERE conversation = $1',
      [conv],
    );
    expect(events.length).toBeGreaterThan(6);
    for (const { body } of events) onTheRealClock(body.ts, `the ${body.event} event`);
  }, 120_000);

  it('a machine 2 h ahead delivers a message whose expires_at is 30 min away, and refuses one once it passed', async () => {
    const { conv, a } = await twoClocks({}, { reply: false });
    const soon = new Date(Date.now() + 30 * 60_000).toISOString();
    a.send('c1_to_c2', 'later.json', { content: 'valid for 30 min', expires_at: soon });
    await waitFor('delivered', async () => (await archived(server.url, conv))[0]?.delivered_at, 30_000).catch(
      async (e: Error) => {
        const rejected = await query(server.url, 'SELECT reason FROM baton.rejected WHERE conversation = $1', [conv]);
        throw new Error(`${e.message}; rejected: ${JSON.stringify(rejected)}`);
      },
    );
    // claude2 holds the turn now: claude1's next message waits, and expires 3 s from now — by the database's time.
    const expires = Date.now() + 3000;
    a.send('c1_to_c2', 'brief.json', { content: 'valid for 3 s', expires_at: new Date(expires).toISOString() });
    const rejected = async () =>
      (
        await query<{ reason: string; rejected_at: Date }>(
          server.url,
          'SELECT reason, rejected_at FROM baton.rejected WHERE conversation = $1',
          [conv],
        )
      )[0];
    await waitFor('rejected as expired', async () => Boolean(await rejected()), 30_000);
    const r = (await rejected())!;
    expect(r.reason).toMatch(/^expired: /);
    expect(r.rejected_at.getTime()).toBeGreaterThanOrEqual(expires);
    expect((await archived(server.url, conv)).map((x) => x.content)).toEqual(['valid for 30 min']);
  }, 120_000);
});

describe('one clock per conversation (files bus)', () => {
  let p: Project | undefined;
  afterEach(async () => {
    await p?.stop();
    p = undefined;
  });

  it("the machine's own clock is the conversation's: a daemon 2 h ahead measures and writes with it alone", async () => {
    p = new Project({ turns: { max_duration_s: 600, timeout_s: 60, max_nudges: 1 }, delivery: { enter_delay_ms: 0 } });
    Object.assign(p.env, TWO_HOURS_AHEAD);
    const logs = {
      claude1: await p.recorder('claude1', { reply: true }),
      claude2: await p.recorder('claude2', { reply: true }),
    };
    await p.startDaemon();
    p.send('c1_to_c2', 'opening.json', {
      content: 'ping',
      expires_at: new Date(Date.now() + HOURS_2 + 30 * 60_000).toISOString(),
    });
    await waitFor('4 delivered', () => p!.archive().filter((r) => r.delivered_at).length >= 4, 30_000);
    await sleep(1500);
    const s = p.state();
    expect(s.finished, JSON.stringify(s)).toBeUndefined();
    expect(s.nudges ?? 0).toBe(0);
    for (const log of Object.values(logs))
      expect(readRecorder(log).typed.filter((t) => /reminder/.test(t))).toEqual([]);
    // Everything on that one clock, as before: 2 h ahead of the real time here.
    for (const at of [
      s.started_at,
      s.turn_started_at,
      ...p.archive().flatMap((r) => (r.delivered_at ? [r.delivered_at] : [])),
    ])
      expect(Math.abs(Date.parse(String(at)) - Date.now() - HOURS_2), String(at)).toBeLessThan(5 * 60_000);
  }, 60_000);
});
