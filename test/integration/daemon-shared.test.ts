/**
 * One `baton daemon` for two conversations on the files bus, one tmux server: each delivers, a second
 * config naming the same conversation is served once, and `baton down` in one conversation does not stop
 * the process the other one runs on.
 */
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { alive, CLI, Project, readRecorder, waitFor } from '../helpers/harness.js';

const made: Project[] = [];
afterEach(async () => {
  for (const p of made.splice(0)) await p.stop();
});

/** A conversation whose agents' sessions are called `<tag>-claude1/2`, on the tmux server of `on` if given. */
function conversation(tag: string, on?: Project): Project {
  const agents = Object.fromEntries(
    ['claude1', 'claude2'].map((a) => [a, { kind: 'generic', command: 'x', session: `${tag}-${a}` }]),
  );
  const p = new Project({ agents, delivery: { enter_delay_ms: 0 } });
  if (on) p.env.TMUX_TMPDIR = on.tmuxDir;
  made.push(p);
  return p;
}

describe('one daemon for several conversations (files bus)', () => {
  it('serves both, serves a repeated conversation once, and survives "baton down" in one of them', async () => {
    const p1 = conversation('p1');
    const p2 = conversation('p2', p1);
    const log1 = await p1.recorder('p1-claude2');
    const log2 = await p2.recorder('p2-claude2');
    const log2back = await p2.recorder('p2-claude1');

    const d = execa('node', [CLI, 'daemon', p1.configFile, p2.configFile, p1.configFile], {
      env: p1.env,
      reject: false,
      all: true,
    });
    const running = async (p: Project) =>
      JSON.parse((await p.cli(['status', '--json'])).stdout).daemon as { running: boolean; pid: number | null };
    await waitFor(
      'both conversations served',
      async () => (await running(p1)).pid === d.pid && (await running(p2)).pid === d.pid,
      20_000,
    );

    p1.send('c1_to_c2', 'a.json', { content: 'to p1 claude2' });
    p2.send('c1_to_c2', 'b.json', { content: 'to p2 claude2' });
    await waitFor('both delivered', () => p1.archive()[0]?.delivered_at && p2.archive()[0]?.delivered_at);
    await waitFor(
      'each pane read its own',
      () =>
        readRecorder(log1).typed.some((t) => t.includes('to p1 claude2')) &&
        readRecorder(log2).typed.some((t) => t.includes('to p2 claude2')),
    );
    expect(readRecorder(log1).typed.join('\n')).not.toContain('to p2 claude2');

    // "baton down" in p1 stops p1's sessions, not the process p2 runs on.
    const down = await p1.cli(['down']);
    expect(down.exitCode, down.stderr + down.stdout).toBe(0);
    expect(down.stderr + down.stdout).toMatch(/also serves 1 other conversation/);
    expect(d.exitCode).toBeNull();
    expect(alive(d.pid!), 'the shared daemon still runs').toBe(true);
    p2.send('c2_to_c1', 'c.json', { content: 'back to p2 claude1' });
    await waitFor('p2 still delivered', () => p2.archive()[1]?.delivered_at);
    await waitFor('its pane read it', () => readRecorder(log2back).typed.some((t) => t.includes('back to p2 claude1')));

    d.kill('SIGTERM');
    const r = await d;
    expect(r.exitCode, r.all).toBe(0);
    expect(r.all).toMatch(/is the conversation of .* again: served once/);
    expect(r.all).toMatch(/serving 2 conversations/);
  }, 90_000);
});
