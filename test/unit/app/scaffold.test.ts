/**
 * app/up/scaffold.ts: the config `baton init` writes names what is the project's own — its agents, their
 * sessions, the policy asked for — and pins no default, so a default changed later (the measured Enter rule
 * of each kind) reaches it as it reaches every other project.
 */
import { describe, expect, it } from 'vitest';
import { ConfigFileSchema, parseConfig } from '../../../src/config/config.js';
import { acrossMachines, scaffold } from '../../../src/app/up/scaffold.js';

describe("baton init's config", () => {
  it('names its agents and policy, and leaves every other key to its default', () => {
    const raw = scaffold(['claude', 'generic'], 'round_robin', '/work/proj');
    expect(Object.keys(raw).sort()).toEqual(['agents', 'turns']);
    expect(raw.turns).toEqual({ policy: 'round_robin' });
    const c = parseConfig(raw, '/work/proj/config.json', '/work/proj', { BATON_HOST: 'here' });
    expect(c.order).toEqual(['claude1', 'agent1']);
    expect(c.delivery.enter_delay_ms).toBeUndefined();
    expect({ turns: c.turns, inbox: c.inbox, messageDir: c.messageDir, firstTurn: c.firstTurn }).toEqual({
      turns: ConfigFileSchema.parse({ turns: { policy: 'round_robin' } }).turns,
      inbox: ConfigFileSchema.parse({}).inbox,
      messageDir: '/work/proj/messages',
      firstTurn: 'claude1',
    });
  });

  it('across machines (--bus postgres) names the conversation after the folder, as the default would, in the file', () => {
    const raw = acrossMachines(
      scaffold(['claude', 'claude'], 'alternate', '/work/review 42'),
      {
        url: undefined,
        hosts: { claude2: 'beta' },
      },
      '/work/review 42',
    );
    expect(raw.bus).toEqual({ kind: 'postgres', conversation: 'review%2042' });
    // What the default gives the folder: the same conversation as before init wrote it down.
    const c = parseConfig(raw, '/work/review 42/config.json', '/work/review 42', {
      BATON_HOST: 'here',
      BATON_BUS_URL: 'postgres://x',
    });
    const unnamed = parseConfig(
      { ...raw, bus: { kind: 'postgres' } },
      '/work/review 42/config.json',
      '/work/review 42',
      { BATON_HOST: 'here', BATON_BUS_URL: 'postgres://x' },
    );
    expect(c.bus).toEqual(unnamed.bus);
  });
});
