/**
 * app/up/agent-start.ts startPlan: how `baton up` starts an agent of a conversation that was running — its
 * client's own resume of the session its hooks reported (Claude Code `--resume ID`, Codex `resume ID` after
 * baton's options, Gemini CLI `--resume ID`), or new, saying why — and config.json's budget and pricing keys.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../../src/config/config.js';
import type { State } from '../../../src/core/state.js';
import { startPlan } from '../../../src/app/up/agent-start.js';

const ID = '662dd966-c06b-4056-9cde-094d262dfa46';
const config = parseConfig(
  {
    agents: {
      c: { kind: 'claude', cwd: '/w/c', env: { HOME: '/h/c' } },
      x: { kind: 'codex', cwd: '/w/x', env: { CODEX_HOME: '/h/x' } },
      g: { kind: 'gemini', cwd: '/w/g', env: { GEMINI_CLI_HOME: '/h/g' } },
      s: { kind: 'shell', cwd: '/w/s' },
    },
    turns: { policy: 'round_robin' },
  },
  '/p/config.json',
  '/p',
  { BATON_HOST: 'here' },
);
const session = (agent: string, kind: string, cwd: string, transcript?: string) => ({
  [agent]: { id: ID, kind, cwd, at: 'then', ...(transcript ? { transcript } : {}) },
});
const state = (sessions: State['sessions']): State => ({
  current_turn: 'c',
  last_message_id: 'msg_0005',
  message_counter: 5,
  pending_reply_to: 'msg_0005',
  sessions,
});
const plan = (agent: string, st: State | null, o: { command?: string; freshAgents?: boolean; exists?: boolean } = {}) =>
  startPlan({
    agent: config.agents[agent]!,
    command: o.command ?? config.agents[agent]!.kind,
    state: st,
    freshAgents: o.freshAgents ?? false,
    demo: false,
    exists: () => o.exists ?? true,
  });

describe('starting an agent of a conversation that was running', () => {
  it("resumes each client's session by its own arguments", () => {
    expect(plan('c', state(session('c', 'claude', '/w/c')))).toEqual({ resume: { id: ID, args: ['--resume', ID] } });
    expect(plan('x', state(session('x', 'codex', '/w/x')))).toEqual({ resume: { id: ID, args: ['resume', ID] } });
    expect(plan('g', state(session('g', 'gemini', '/w/g')))).toEqual({ resume: { id: ID, args: ['--resume', ID] } });
  });

  it('starts new, silently, with no session recorded or a kind baton cannot resume', () => {
    expect(plan('c', null)).toEqual({ fresh: null });
    expect(plan('c', state({}))).toEqual({ fresh: null });
    expect(plan('s', state(session('s', 'shell', '/w/s')))).toEqual({ fresh: null });
  });

  it('starts new, saying why: --fresh-agents, another kind or folder, a wrapper command, an ID not a client’s', () => {
    const st = state(session('c', 'claude', '/w/c'));
    expect(plan('c', st, { freshAgents: true })).toEqual({ fresh: `--fresh-agents: its session ${ID} is not resumed` });
    expect((plan('c', state(session('c', 'codex', '/w/c'))) as { fresh: string }).fresh).toMatch(/a codex session/);
    expect((plan('c', state(session('c', 'claude', '/elsewhere'))) as { fresh: string }).fresh).toMatch(
      /ran in \/elsewhere, not in its folder now/,
    );
    expect((plan('c', st, { command: './my-claude.sh' }) as { fresh: string }).fresh).toMatch(
      /does not start claude itself/,
    );
    const bad = state({ c: { id: 'nonsense-name', kind: 'claude', cwd: '/w/c', at: 'then' } });
    expect((plan('c', bad) as { fresh: string }).fresh).toMatch(/not one its client gives/);
  });

  it("starts new when the file its client keeps the session in is gone (under the client's own folder)", () => {
    const t = '/h/c/.claude/projects/-w-c/x.jsonl';
    expect(plan('c', state(session('c', 'claude', '/w/c', t)), { exists: false })).toEqual({
      fresh: `its client no longer has session ${ID} (its file ${t} is gone)`,
    });
    expect('resume' in plan('c', state(session('c', 'claude', '/w/c', t)), { exists: true })).toBe(true);
    // A path outside the client's folders proves nothing (it came from the agent's own note): tried, and watched.
    expect('resume' in plan('c', state(session('c', 'claude', '/w/c', '/etc/x')), { exists: false })).toBe(true);
  });
});

describe("config.json's cost keys", () => {
  const parse = (extra: Record<string, unknown>) =>
    parseConfig({ agents: { a: { kind: 'claude' }, b: { kind: 'claude' } }, ...extra }, '/p/config.json', '/p', {
      BATON_HOST: 'here',
    });

  it('take budgets and prices', () => {
    const c = parse({
      turns: { max_cost_usd: 5 },
      agents: { a: { kind: 'claude', max_cost_usd: 2 }, b: { kind: 'claude' } },
      pricing: { 'my-model': { input: 1, output: 2, cached_input: 0.1 } },
    });
    expect([c.turns.max_cost_usd, c.agents.a!.maxCostUsd, c.agents.b!.maxCostUsd]).toEqual([5, 2, 0]);
    expect(c.pricing).toEqual({ 'my-model': { input: 1, output: 2, cached_input: 0.1 } });
  });

  it('a bad price names its key path', () => {
    const err = (() => {
      try {
        parse({ pricing: { 'my-model': { input: -1, outptu: 2 } } });
      } catch (e) {
        return e as ConfigError;
      }
    })();
    expect(err).toBeInstanceOf(ConfigError);
    expect(err!.problems.join('\n')).toMatch(/pricing\.my-model\.input/);
    expect(err!.problems.join('\n')).toMatch(/pricing\.my-model/);
  });
});
