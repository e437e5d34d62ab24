/**
 * The loop guard, the closing turn and `baton export` on the PostgreSQL bus (docs/protocol.md §12): the same
 * as on the files bus, through the Bus interface only — the pause and its evidence in the conversation's
 * row, resumed by a person; the outcome through the finish and into OUTCOME.md; the export read from the
 * database.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/harness.js';
import { archived, machinesConfig, query, useMachines } from '../helpers/machines.js';
import { usePostgres } from '../helpers/postgres.js';

const server = usePostgres();
const machine = useMachines();

const THANKS = [
  'Thanks for the thorough review! I have merged the fix.',
  "You're welcome! Glad the fix worked out. Let me know if anything else comes up.",
  'Thank you, will do! It was great working through this with you.',
  'Likewise! Great collaboration. Have a good one.',
  'Thanks, you too! Talk soon.',
];
const OUTCOME = '## Decided\n- merged the fix\n\n## Open\n- none\n\n## Next steps\n- none';

describe('unattended, on the PostgreSQL bus', () => {
  it('a thank-you loop pauses with evidence; resumed, it finishes; the closing outcome; export', async () => {
    const conv = `unattended-${process.pid}`;
    const config = machinesConfig(server.url, conv, {
      agents: {
        claude1: { kind: 'generic', command: 'x', host: 'alpha' },
        claude2: { kind: 'generic', command: 'x', host: 'alpha' },
      },
      turns: { max_turns: 5, closing: { agent: 'claude1' } },
    });
    const a = machine('alpha', config);
    await a.recorder('claude1');
    await a.recorder('claude2');
    await a.daemon();
    const state = async () =>
      (
        await query<{ state: Record<string, unknown> }>(
          server.url,
          'SELECT state FROM baton.conversations WHERE name = $1',
          [conv],
        )
      )[0]!.state as {
        paused?: { reason?: string; evidence?: string[] } | null;
        finished?: unknown;
        closing?: unknown;
      };
    const delivered = async (n: number) => (await archived(server.url, conv)).filter((r) => r.delivered_at).length >= n;
    for (let n = 1; n <= 4; n++) {
      a.send(n % 2 ? 'c1_to_c2' : 'c2_to_c1', `${n}.json`, { content: THANKS[n - 1] });
      await waitFor(`msg ${n}`, () => delivered(n), 30_000);
    }
    await waitFor('paused', async () => (await state()).paused, 30_000);
    expect((await state()).paused).toMatchObject({
      reason: 'loop',
      evidence: ['msg_0001', 'msg_0002', 'msg_0003', 'msg_0004'],
    });
    const json = JSON.parse((await a.cli(['status', '--json'])).stdout) as { paused: unknown };
    expect(json.paused).toMatchObject({ reason: 'loop' });
    expect((await a.cli(['resume'])).exitCode).toBe(0);
    a.send('c1_to_c2', '5.json', { content: THANKS[4] });
    await waitFor('finished', async () => (await state()).finished, 30_000);
    expect((await state()).paused ?? null).toBeNull();
    await waitFor('closing asked', async () => (await state()).closing);
    const post = await a.cli(['post', '--as', 'claude1', '--type', 'outcome', OUTCOME]);
    expect(post.exitCode, post.stderr).toBe(0);
    await waitFor('OUTCOME.md', () => existsSync(a.path('OUTCOME.md')), 30_000);
    expect(readFileSync(a.path('OUTCOME.md'), 'utf8')).toContain(OUTCOME);
    expect((await state()).closing).toMatchObject({ agent: 'claude1', outcome: 'msg_0006' });
    const md = await a.cli(['export']);
    expect(md.exitCode, md.stderr).toBe(0);
    expect(md.stdout).toContain('## Outcome');
    for (let n = 1; n <= 6; n++) expect(md.stdout).toContain(`### msg_000${n}`);
    expect(md.stdout).toContain('type outcome');
  }, 120_000);
});
