/**
 * What every machine of a conversation must agree on (config/fingerprint.ts): agents, their machines and
 * kinds, their order, directions, first turn, turn rules, message size — not what only a machine uses.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/config.js';
import { differences, fingerprintOf } from '../../../src/config/fingerprint.js';

const base = {
  agents: { a: { kind: 'claude', host: 'alpha' }, b: { kind: 'codex', host: 'beta' } },
  bus: { kind: 'postgres', url: 'postgres://x@db/baton', conversation: 'c' },
};
const fp = (raw: Record<string, unknown>, host = 'alpha') =>
  fingerprintOf(parseConfig(raw, '/p/config.json', '/p', { BATON_HOST: host }));

describe('the config fingerprint', () => {
  it('is the same on every machine of one config, whatever each runs locally', () => {
    const local = {
      ...base,
      agents: { a: { ...base.agents.a, command: 'claude --x', cwd: '/elsewhere' }, b: base.agents.b },
      delivery: { enter_delay_ms: 900 },
      inbox: { settle_ms: 5 },
    };
    expect(differences(fp(base, 'alpha'), fp(base, 'beta'))).toEqual([]);
    expect(differences(fp(base), fp(local))).toEqual([]);
    // Stored as JSON (optional keys left out) it is still the same.
    expect(differences(JSON.parse(JSON.stringify(fp(base))), fp(base))).toEqual([]);
  });

  it('names every key that differs: a missing host, a kind, the order, the rules, the size', () => {
    const other = {
      ...base,
      agents: { b: { kind: 'claude', host: 'beta' }, a: { kind: 'claude' } },
      turns: { policy: 'handoff', max_turns: 4 },
      inbox: { max_bytes: 10 },
    };
    expect(differences(fp(base), fp(other, 'beta'))).toEqual([
      'agents.a.host',
      'agents.b.kind',
      'first_turn',
      'inbox.max_bytes',
      'order',
      'turns.max_turns',
      'turns.policy',
    ]);
  });
});
