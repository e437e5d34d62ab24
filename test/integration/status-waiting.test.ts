/**
 * `baton status` says why each waiting file waits, in its text and in `--json` (`waiting`), by the rules
 * the daemon holds it by: out of turn (whose turn it is), paused, no daemon running, the receiver's pane
 * not ready. It used to count a waiting file (`c2_to_c1: 1`) and say nothing of why, with `waiting: {}`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Project, waitFor } from '../helpers/harness.js';

let p: Project | undefined;
afterEach(async () => {
  await p?.stop();
  p = undefined;
});

type Waiting = Record<string, { count: number; reason: string; text: string; [k: string]: unknown }>;

describe('why a waiting file waits', () => {
  it('out of turn, paused, no daemon, and a receiver whose pane is gone: in the text and in --json', async () => {
    p = new Project();
    const project = p;
    await p.recorder('claude1');
    await p.recorder('claude2');
    const status = async () => {
      const json = JSON.parse((await project.cli(['status', '--json'])).stdout) as { waiting: Waiting };
      const text = (await project.cli(['status'])).stdout.split('\n').find((l) => l.startsWith('waiting'));
      return { waiting: json.waiting, text };
    };

    // No daemon yet: claude1's message is in turn, and nothing runs to deliver it.
    p.send('c1_to_c2', 'a.json', { content: 'first' });
    let s = await status();
    expect(s.waiting).toEqual({
      c1_to_c2: { count: 1, reason: 'no_daemon', text: 'its turn, but no daemon is running ("baton up" starts it)' },
    });
    expect(s.text).toContain('c1_to_c2: 1 (its turn, but no daemon is running');

    await p.startDaemon();
    await waitFor('delivered', () => p!.archive()[0]?.delivered_at);
    // claude2 holds the turn now: a second message of claude1's is out of turn.
    p.send('c1_to_c2', 'b.json', { content: 'out of turn' });
    await waitFor('held', () => p!.events().find((e) => e.event === 'held'));
    s = await status();
    expect(s.waiting).toEqual({
      c1_to_c2: { count: 1, reason: 'out_of_turn', turn: 'claude2', text: "it is claude2's turn, not claude1's" },
    });
    expect(p.events().find((e) => e.event === 'held')?.reason).toBe(s.waiting.c1_to_c2!.text);
    expect(s.text).toBe("waiting       c1_to_c2: 1 (it is claude2's turn, not claude1's), c2_to_c1: 0");

    // Paused: claude2's answer waits though it is claude2's turn (and claude1's message for the same reason).
    expect((await p.cli(['pause'])).exitCode).toBe(0);
    p.send('c2_to_c1', 'c.json', { content: 'while paused' });
    s = await status();
    expect(s.waiting.c2_to_c1).toMatchObject({ count: 1, reason: 'paused' });
    expect(s.waiting.c1_to_c2).toMatchObject({ count: 1, reason: 'paused' });
    expect(s.waiting.c2_to_c1!.text).toBe('the conversation is paused; "baton resume" continues it');

    // Resumed with claude2's pane gone: claude2's answer goes, and claude1's held message, in turn now,
    // waits for claude2's pane.
    await p.killSession('claude2');
    expect((await p.cli(['resume'])).exitCode).toBe(0);
    await waitFor('delivered after resume', () => p!.archive().length === 2 && p!.archive()[1]!.delivered_at);
    s = await status();
    expect(s.waiting).toEqual({
      c1_to_c2: {
        count: 1,
        reason: 'receiver_not_ready',
        receiver: 'claude2',
        detail: 'there is no tmux session "claude2"',
        text: 'claude2: there is no tmux session "claude2"',
      },
    });
  }, 60_000);
});
