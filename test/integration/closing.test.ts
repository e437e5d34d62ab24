/**
 * The closing turn (docs/protocol.md §12, `turns.closing`) with the real daemon on a private tmux server:
 * when the conversation finishes, the closing agent alone is asked for the outcome in the fixed shape; its
 * `outcome` message gets through the finish once, is archived with that type, written to OUTCOME.md and
 * shown first by `baton export`. Off by default: a finish asks nobody.
 */
import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { Project, readRecorder, waitFor } from '../helpers/harness.js';

let p: Project | undefined;
afterEach(async () => {
  await p?.stop();
  p = undefined;
});

const OUTCOME = '## Decided\n- ship v1.0\n\n## Open\n- none\n\n## Next steps\n- tag it';

async function twoTurns(turns: Record<string, unknown>) {
  p = new Project({ delivery: { enter_delay_ms: 0 }, turns: { max_turns: 2, ...turns } });
  const q = p;
  const logs = { claude1: await q.recorder('claude1'), claude2: await q.recorder('claude2') };
  await q.startDaemon();
  q.send('c1_to_c2', '1.json', { content: 'shall we ship v1.0?' });
  await waitFor('msg 1', () => q.archive()[0]?.delivered_at);
  q.send('c2_to_c1', '2.json', { content: 'yes, ship it' });
  await waitFor('finished', () => (q.state() as { finished?: unknown }).finished);
  return { q, logs };
}

describe('turns.closing', () => {
  it('the closing agent is asked once; its outcome gets through the finish, is archived and written to OUTCOME.md', async () => {
    const { q, logs } = await twoTurns({ closing: { agent: 'claude2', prompt: 'Sum up the release decision.' } });
    const asked = await waitFor('claude2 asked', () =>
      readRecorder(logs.claude2).pastes.find((t) => t.includes('one more turn for you')),
    );
    expect(asked).toContain('Sum up the release decision.');
    expect(asked).toContain('## Decided');
    expect(asked).toContain('baton post --type outcome');
    expect(readRecorder(logs.claude1).pastes.some((t) => t.includes('one more turn for you'))).toBe(false);
    // Not the outcome: a finished conversation holds it.
    q.send('c2_to_c1', 'late.json', { content: 'one more thought' });
    await waitFor('late held', () => q.events().some((e) => e.event === 'held' && e.file === 'late.json'));
    const post = await q.cli(['post', '--as', 'claude2', '--type', 'outcome', OUTCOME]);
    expect(post.exitCode, post.stderr).toBe(0);
    await waitFor('outcome written', () => existsSync(q.path('OUTCOME.md')));
    const rec = q.archive().find((r) => r.type === 'outcome')!;
    expect(rec).toMatchObject({ id: 'msg_0003', sender: 'claude2', receiver: 'claude1', content: OUTCOME });
    expect(readFileSync(q.path('OUTCOME.md'), 'utf8')).toContain(OUTCOME);
    expect(q.state()).toMatchObject({
      finished: { reason: 'max_turns' },
      closing: { agent: 'claude2', asked: true, outcome: 'msg_0003' },
    });
    expect(q.events().find((e) => e.event === 'outcome')).toMatchObject({ id: 'msg_0003', agent: 'claude2' });
    // Once: a second outcome waits like anything else after the finish.
    const again = await q.cli(['post', '--as', 'claude2', '--type', 'outcome', 'another outcome']);
    expect(again.exitCode, again.stderr).toBe(0);
    await waitFor('second outcome held', () => q.events().filter((e) => e.event === 'held').length >= 2);
    expect(q.archive()).toHaveLength(3);
    const md = await q.cli(['export']);
    expect(md.stdout.indexOf('## Outcome')).toBeLessThan(md.stdout.indexOf('## Messages'));
    expect(md.stdout).toContain('- ship v1.0');
  }, 60_000);

  it('off by default: a finish asks nobody, and an outcome message is held like any other', async () => {
    const { q, logs } = await twoTurns({});
    q.send('c2_to_c1', 'o.json', { content: OUTCOME, type: 'outcome' });
    await waitFor('held', () => q.events().some((e) => e.event === 'held' && e.file === 'o.json'));
    for (const log of Object.values(logs))
      expect(readRecorder(log).pastes.some((t) => t.includes('one more turn for you'))).toBe(false);
    expect(q.archive()).toHaveLength(2);
    expect(existsSync(q.path('OUTCOME.md'))).toBe(false);
  }, 60_000);
});
