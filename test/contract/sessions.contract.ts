/**
 * What a conversation keeps for surviving a reboot and counting its cost (docs/protocol.md §12), on every
 * bus: each agent's client session, the spent sums and a budget's pause in the state; a turn's cost and the
 * pane a message went into on its record — written by one daemon, found by the next one after it is gone,
 * and by every reader.
 */
import { describe, expect, it } from 'vitest';
import { openBus } from '../../src/bus/open.js';
import { loadConfig, locateConfig } from '../../src/config/load.js';
import { stamped } from '../../src/core/record.js';
import type { Contract } from './world.js';

export function sessionsContract(c: Contract): void {
  describe('what survives a reboot: sessions, cost, the pane a message went into', () => {
    it("the agents' client sessions, spent sums and a budget's pause outlive the daemon that wrote them", async () => {
      const { config, bus } = await c.setup();
      const d = await c.deliverer(bus);
      const sessions = {
        claude1: {
          id: '662dd966-c06b-4056-9cde-094d262dfa46',
          kind: 'claude',
          cwd: '/w/c1',
          transcript: '/h/t.jsonl',
          at: 'T1',
        },
        claude2: { id: '01a22176-4893-7cf1-bd54-88064e1ca035', kind: 'codex', cwd: '/w/c2', at: 'T2' },
      };
      const cost = { usd: 1.25, by_agent: { claude1: 1, claude2: 0.25 }, unpriced: ['mystery-1'] };
      const paused = { at: 'T3', reason: 'budget' as const, budget: 'turns.max_cost_usd', spent_usd: 1.25, max_usd: 1 };
      await d.update((s) => ({ ...s, sessions, cost, paused, raised: { 'turns.max_cost_usd': 2 } }));
      await d.close();
      // `baton up` after a reboot: another process opens the conversation and reads them.
      const again = openBus(loadConfig(locateConfig(c.world().configFile)));
      expect(await again.readState()).toMatchObject({ sessions, cost, paused, raised: { 'turns.max_cost_usd': 2 } });
      expect(config.order).toEqual(['claude1', 'claude2']);
    });

    it("a record keeps its turn's cost and the pane it was typed into, stamped or amended", async () => {
      const { config, bus } = await c.setup();
      const d = await c.deliverer(bus);
      await bus.post(c.dir(config, 'c1_to_c2'), { content: 'hello', sender: 'claude1' });
      const [first] = await c.ready(d);
      const r = await d.commit(first!, c.step(config)(first!));
      if (r.kind !== 'committed') throw new Error(r.kind);
      const pane = { id: '%3', pid: 4242, server: '100:1700000000' };
      await d.stamp({ ...stamped(r.record, 'screen', false, new Date().toISOString()), typed_into: pane });
      expect((await bus.record('msg_0001'))?.typed_into).toEqual(pane);
      const turn_cost = { usd: 0.0042, models: ['claude-opus-4-8'], unpriced: [] };
      const turn_tokens = { input: 1, output: 2, cache_creation: 3, cache_read: 4 };
      const moved = { id: '%9', pid: 5, server: '200:1800000000' };
      expect(await d.amend('msg_0001', { turn_tokens, turn_cost, typed_into: moved })).toBe(true);
      expect(await bus.record('msg_0001')).toMatchObject({
        turn_tokens,
        turn_cost,
        typed_into: moved,
        content: 'hello',
      });
    });
  });
}
