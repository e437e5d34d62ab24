/**
 * The loop guard (docs/protocol.md §12) with a real daemon on a private tmux server: a scripted thank-you
 * loop pauses within its window with the messages as evidence, a person's resume goes on without the
 * guard tripping on the same window again, and the demo runs to its end without a pause.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, Project, waitFor } from '../helpers/harness.js';

let p: Project | undefined;
afterEach(async () => {
  await p?.stop();
  p = undefined;
});

const THANKS = [
  'Thanks for the thorough review! I have merged the fix.',
  "You're welcome! Glad the fix worked out. Let me know if anything else comes up.",
  'Thank you, will do! It was great working through this with you.',
  'Likewise! Great collaboration. Have a good one.',
  'Thanks, you too! Talk soon.',
  'Cheers! Take care.',
  'Thank you! Bye for now.',
  'Goodbye, and thanks again!',
];

/** Message `n` (1-based) of the loop, in its turn's folder. */
function say(q: Project, n: number): void {
  q.send(n % 2 ? 'c1_to_c2' : 'c2_to_c1', `${n}.json`, { content: THANKS[n - 1] });
}
const delivered = (q: Project, n: number) => q.archive()[n - 1]?.delivered_at;

describe('the loop guard', () => {
  it('a thank-you loop pauses within the window; a resume goes on and the same window does not trip again', async () => {
    p = new Project({ delivery: { enter_delay_ms: 0 } });
    const q = p;
    await q.recorder('claude1');
    await q.recorder('claude2');
    await q.startDaemon();
    for (let n = 1; n <= 4; n++) {
      say(q, n);
      await waitFor(`msg ${n} delivered`, () => delivered(q, n));
    }
    const paused = await waitFor('paused', () => (q.state() as { paused?: { reason?: string } }).paused);
    expect(paused).toMatchObject({ reason: 'loop', evidence: ['msg_0001', 'msg_0002', 'msg_0003', 'msg_0004'] });
    expect(q.events().find((e) => e.event === 'loop')).toMatchObject({
      kind: 'acknowledgements',
      evidence: ['msg_0001', 'msg_0002', 'msg_0003', 'msg_0004'],
    });
    const status = await q.cli(['status']);
    expect(status.stdout).toContain('paused by the loop guard (msg_0001, msg_0002, msg_0003, msg_0004 added nothing)');
    // The next thanks waits: a loop is held, not ended.
    say(q, 5);
    await waitFor('msg 5 held', () => q.events().some((e) => e.event === 'held'));
    expect(q.archive()).toHaveLength(4);
    const resumed = await q.cli(['resume']);
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain('it was paused: loop');
    await waitFor('msg 5 delivered', () => delivered(q, 5));
    // msg_0002..msg_0005 is a window of four acknowledgements too, but reaches back past the resume.
    for (const n of [6, 7]) {
      say(q, n);
      await waitFor(`msg ${n} delivered`, () => delivered(q, n));
    }
    expect((q.state() as { paused?: unknown }).paused ?? null).toBeNull();
    say(q, 8);
    await waitFor('msg 8 delivered', () => delivered(q, 8));
    const again = await waitFor('paused again', () => (q.state() as { paused?: { evidence?: string[] } }).paused);
    expect(again.evidence).toEqual(['msg_0005', 'msg_0006', 'msg_0007', 'msg_0008']);
    expect(q.events().filter((e) => e.event === 'loop')).toHaveLength(2);
  }, 60_000);

  it('turns.loop_guard false: the same loop runs on', async () => {
    p = new Project({ delivery: { enter_delay_ms: 0 }, turns: { loop_guard: false } });
    const q = p;
    await q.recorder('claude1');
    await q.recorder('claude2');
    await q.startDaemon();
    for (let n = 1; n <= 6; n++) {
      say(q, n);
      await waitFor(`msg ${n} delivered`, () => delivered(q, n));
    }
    expect(q.state().paused ?? null).toBeNull();
    expect(q.events().filter((e) => e.event === 'loop')).toEqual([]);
  }, 60_000);

  it('the demo runs to its end with the guard on (its default)', async () => {
    p = new Project();
    const proj = join(p.dir, 'proj');
    const env = { ...p.env, BATON_DEMO_DELAY_MS: '50' };
    const baton = (args: string[], cwd = proj) => execa('node', [CLI, ...args], { cwd, env, reject: false });
    expect((await baton(['init', proj], p.dir)).exitCode).toBe(0);
    const up = await baton(['up', '--demo']);
    expect(up.exitCode, `${up.stdout}\n${up.stderr}`).toBe(0);
    const file = (n: string) => join(proj, 'messages', n);
    const state = () => (existsSync(file('state.json')) ? JSON.parse(readFileSync(file('state.json'), 'utf8')) : {});
    const s = await waitFor('the demo to finish', () => (state().finished ? state() : null), 60_000);
    expect(s.finished.reason).toBe('max_turns');
    expect(s.message_counter).toBe(8);
    expect(readFileSync(file('events.jsonl'), 'utf8')).not.toContain('"event":"loop"');
    expect((await baton(['down'])).exitCode).toBe(0);
  }, 90_000);
});
