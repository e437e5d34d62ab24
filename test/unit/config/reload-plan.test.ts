/** A config.json edited while the daemon runs: what it applies now, what only a restart applies. */
import { describe, expect, it } from 'vitest';
import { parseConfig, type Config } from '../../../src/config/config.js';
import { applyLive, reloadPlan } from '../../../src/config/reload-plan.js';

const env = { BATON_HOST: 'here' };
const base = {
  agents: { a: { kind: 'claude', command: 'claude' }, b: { kind: 'shell' } },
  turns: { policy: 'alternate', max_turns: 10 },
};
const config = (raw: Record<string, unknown>): Config => parseConfig(raw, '/p/config.json', '/p', env);
const pg = { bus: { kind: 'postgres', url: 'postgres://u@h/db' } };

describe('reloadPlan (files bus)', () => {
  it('the same file: nothing to do', () => {
    expect(reloadPlan(config(base), config(base))).toEqual({ live: [], restart: [] });
  });

  it('turns (but the policy), delivery and an agent’s reply are live', () => {
    const next = config({
      ...base,
      agents: { ...base.agents, a: { ...base.agents.a, reply: 'auto' } },
      turns: { policy: 'alternate', max_turns: 3, timeout_s: 30, stop_phrase: 'DONE' },
      delivery: { enter_delay_ms: 400, template: '{header} {content}' },
    });
    expect(reloadPlan(config(base), next)).toEqual({
      live: [
        'agents.a.reply',
        'delivery.enter_delay_ms',
        'delivery.template',
        'turns.max_turns',
        'turns.stop_phrase',
        'turns.timeout_s',
      ],
      restart: [],
    });
  });

  it('an agent’s allow rules need a restart: they are written into its client’s settings at up', () => {
    const next = config({ ...base, agents: { ...base.agents, a: { ...base.agents.a, allow: ['npm test'] } } });
    expect(reloadPlan(config(base), next)).toEqual({ live: [], restart: ['agents.a.allow'] });
  });

  it('an agent added, an agent’s command or cwd, the policy, message_dir, inbox and bus need a restart', () => {
    const next = config({
      message_dir: './other',
      agents: { ...base.agents, a: { kind: 'claude', command: 'claude --x', cwd: './x' }, c: { kind: 'shell' } },
      turns: { policy: 'round_robin', max_turns: 10 },
      inbox: { settle_ms: 5 },
    });
    const plan = reloadPlan(config(base), next);
    expect(plan.live).toEqual([]);
    expect(plan.restart).toEqual(
      expect.arrayContaining([
        'agent order',
        'agents.a.command',
        'agents.a.cwd',
        'agents.c',
        'inbox.settle_ms',
        'message_dir',
        'turns.policy',
      ]),
    );
    expect(plan.restart.filter((k) => k.startsWith('directions.')).length).toBeGreaterThan(0);
    expect(reloadPlan(config(base), config({ ...base, ...pg })).restart).toEqual(
      expect.arrayContaining(['bus.kind', 'bus.url']),
    );
  });

  it('an agent removed needs a restart', () => {
    const three = { ...base, agents: { ...base.agents, c: { kind: 'shell' } }, turns: { policy: 'round_robin' } };
    expect(reloadPlan(config(three), config({ ...three, agents: base.agents })).restart).toContain('agents.c');
  });
});

describe('reloadPlan (PostgreSQL bus)', () => {
  it('the turn rules every machine shares need a restart; delivery and reply stay live', () => {
    const running = config({ ...base, ...pg });
    const next = config({
      ...base,
      ...pg,
      agents: { ...base.agents, a: { ...base.agents.a, reply: 'both' } },
      turns: { policy: 'alternate', max_turns: 3 },
      delivery: { enter_delay_ms: 5 },
    });
    expect(reloadPlan(running, next)).toEqual({
      live: ['agents.a.reply', 'delivery.enter_delay_ms'],
      restart: ['turns.max_turns'],
    });
  });
});

describe('applyLive', () => {
  it('takes the live part into the running config in place, and nothing else', () => {
    const running = config(base);
    const agentA = running.agents.a;
    const next = config({
      ...base,
      agents: { a: { ...base.agents.a, reply: 'auto', command: 'other' }, b: base.agents.b, c: {} },
      turns: { policy: 'round_robin', max_turns: 2 },
      delivery: { enter_delay_ms: 9 },
    });
    applyLive(running, next);
    expect(running.turns.max_turns).toBe(2);
    expect(running.delivery.enter_delay_ms).toBe(9);
    expect(running.agents.a).toBe(agentA); // the same object: parts holding it see the change
    expect(running.agents.a).toMatchObject({ reply: 'auto', command: 'claude' });
    expect(running.order).toEqual(['a', 'b']);
  });
});
