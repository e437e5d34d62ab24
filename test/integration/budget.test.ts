/**
 * What it costs (docs/protocol.md §12), against a real tmux server and stand-ins for Claude Code with its
 * hooks (fixtures/fake-claude.mjs: each turn's usage in its transcript, 100 in / 10 out / 5 written to the
 * cache / 20 read from it, under a model the config prices): each turn's cost on the message that opened
 * it, the sums in `status` and `ls`, `turns.max_cost_usd` pausing the conversation with a `budget` event,
 * `baton resume` going on one turn, `baton resume --budget` going on to the end.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { Project, ROOT, waitFor } from '../helpers/harness.js';

const FAKE_CLAUDE = join(ROOT, 'test', 'fixtures', 'fake-claude.mjs');
/** $1000 per million of each: a turn of 135 tokens costs $0.135. */
const PRICE = { input: 1000, output: 1000 };
const TURN = 0.135;

let p: Project | undefined;
afterEach(async () => {
  await p?.stop();
  p = undefined;
});

it('each turn costs what its usage says at its model’s price; the budget pauses it, resume goes on one turn, --budget to the end', async () => {
  p = new Project();
  const agent = (n: string) => {
    const bin = join(p!.dir, n, 'bin');
    mkdirSync(bin, { recursive: true });
    const log = JSON.stringify(join(p!.dir, `${n}.log`));
    writeFileSync(
      join(bin, 'claude'),
      `#!/bin/sh\nexec node ${JSON.stringify(FAKE_CLAUDE)} ${log} --hooks --model fake-model-1 "$@"\n`,
      { mode: 0o755 },
    );
    return {
      kind: 'claude',
      command: join(bin, 'claude'),
      reply: 'auto',
      env: { CLAUDE_CONFIG_DIR: join(p!.dir, 'cc', n) },
    };
  };
  p.writeConfig({
    message_dir: './messages',
    agents: { claude1: agent('claude1'), claude2: agent('claude2') },
    directions: { c1_to_c2: ['claude1', 'claude2'], c2_to_c1: ['claude2', 'claude1'] },
    turns: { policy: 'alternate', max_turns: 12, max_cost_usd: 0.3 },
    pricing: { 'fake-model-1': PRICE },
    inbox: { max_bytes: 1048576, settle_ms: 300 },
    delivery: { enter_delay_ms: 100 },
  });
  expect((await p.cli(['up', '--topic', 'count the cost'])).exitCode).toBe(0);
  const paused = () => p!.state().paused as { reason?: string; budget?: string; spent_usd?: number } | null | undefined;
  await waitFor('the budget pauses it', () => paused()?.reason === 'budget', 30_000);
  expect(paused()).toMatchObject({ budget: 'turns.max_cost_usd', max_usd: 0.3 });
  expect(paused()!.spent_usd).toBeGreaterThanOrEqual(0.3);
  expect(p.state().finished ?? null).toBeNull();
  const budgets = () => p!.events().filter((e) => e.event === 'budget');
  await waitFor('the budget event', () => budgets().length > 0, 5000); // (written after the state)
  expect(budgets()).toHaveLength(1);
  expect(budgets()[0]).toMatchObject({ budget: 'turns.max_cost_usd', max_usd: 0.3 });
  // Every counted turn's cost is on the message that opened it.
  const costed = p.archive().filter((r) => (r as { turn_cost?: unknown }).turn_cost);
  expect(costed.length).toBeGreaterThan(0);
  for (const r of costed)
    expect((r as { turn_cost?: unknown }).turn_cost, r.id).toEqual({
      usd: TURN,
      models: ['fake-model-1'],
      unpriced: [],
    });
  const cost = p.state().cost as { usd: number; by_agent: Record<string, number> };
  expect(cost.usd).toBeCloseTo(cost.by_agent.claude1! + (cost.by_agent.claude2 ?? 0), 9);
  // status and ls say it, in text and JSON.
  const st = JSON.parse((await p.cli(['status', '--json'])).stdout) as {
    cost: { usd: number; max_usd: number };
    paused: { reason: string };
  };
  // (A turn under way when it paused still ends and counts: the sums may have grown since.)
  expect(st.cost.max_usd).toBe(0.3);
  expect(st.cost.usd).toBeGreaterThanOrEqual(cost.usd);
  expect(st.paused.reason).toBe('budget');
  const text = (await p.cli(['status'])).stdout;
  expect(text).toMatch(/cost {10}\$0\.\d\d of max \$0\.30 \(claude1 \$0\.\d\d, claude2 \$0\.\d\d\)/);
  expect(text).toMatch(/paused since .*: its budget turns\.max_cost_usd is spent/);
  const ls = JSON.parse((await p.cli(['ls', '--json'])).stdout) as { conversations: Array<{ cost_usd: number }> };
  expect(ls.conversations[0]!.cost_usd).toBeGreaterThanOrEqual(cost.usd);

  // `baton resume`: the budget stays spent, and the next turn that costs pauses it again.
  const resumed = await p.cli(['resume']);
  expect(resumed.stdout + resumed.stderr).toContain('its budget is spent');
  await waitFor(
    'paused again after one more turn',
    () => budgets().length === 2 && paused()?.reason === 'budget',
    30_000,
  );
  // `baton resume --budget 10`: raised for this conversation, it runs to max_turns.
  const raised = await p.cli(['resume', '--budget', '10']);
  expect(raised.stdout + raised.stderr).toContain('turns.max_cost_usd raised to $10.00');
  await waitFor(
    'finished by max_turns',
    () => (p!.state().finished as { reason?: string } | undefined)?.reason === 'max_turns',
    60_000,
  );
  expect(budgets()).toHaveLength(2);
  expect(p.state().raised).toEqual({ 'turns.max_cost_usd': 10 });
}, 120_000);

it('a model with no price: its tokens are counted, and status says it has no price', async () => {
  p = new Project();
  const bin = join(p.dir, 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(
    join(bin, 'claude'),
    `#!/bin/sh\nexec node ${JSON.stringify(FAKE_CLAUDE)} ${JSON.stringify(join(p.dir, 'c.log'))} --hooks --model mystery-7 "$@"\n`,
    { mode: 0o755 },
  );
  const a = {
    kind: 'claude',
    command: join(bin, 'claude'),
    reply: 'auto',
    env: { CLAUDE_CONFIG_DIR: join(p.dir, 'cc') },
  };
  p.writeConfig({
    message_dir: './messages',
    agents: { claude1: a, claude2: a },
    directions: { c1_to_c2: ['claude1', 'claude2'], c2_to_c1: ['claude2', 'claude1'] },
    turns: { policy: 'alternate', max_turns: 3, max_cost_usd: 0.000001 },
    inbox: { max_bytes: 1048576, settle_ms: 300 },
    delivery: { enter_delay_ms: 100 },
  });
  expect((await p.cli(['up', '--topic', 'no price'])).exitCode).toBe(0);
  await waitFor('finished', () => p!.state().finished, 30_000);
  await waitFor(
    'tokens counted',
    () => ((p!.state().tokens as { total: number } | undefined)?.total ?? 0) >= 3 * 135,
    10_000,
  );
  expect(p.state().cost).toMatchObject({ usd: 0, unpriced: ['mystery-7'] });
  expect(p.state().paused ?? null).toBeNull(); // no cost is known: no budget is reached
  expect((await p.cli(['status'])).stdout).toContain('no price for model mystery-7');
});
