/**
 * A daemon's hints and clock (bus/hints.ts, bus/clock.ts): once watching, a stored message and a person's
 * request are hinted; unwatching is safe twice; the conversation's clock is this machine's time within a
 * margin (the database's, on one machine) and never goes back.
 */
import { describe, expect, it } from 'vitest';
import type { Hint } from '../../src/bus/bus.js';
import { waitFor } from '../helpers/harness.js';
import type { Contract } from './world.js';

export function hintsContract(c: Contract): void {
  describe('hints and the clock', () => {
    it('a stored message and a request are hinted while watching; unwatch twice is safe', async () => {
      const { config, bus } = await c.setup();
      const d = await c.deliverer(bus);
      const hints: Hint[] = [];
      await d.watch((h) => hints.push(h));
      await bus.post(c.dir(config, 'c1_to_c2'), { content: 'hinted' });
      await waitFor('a messages hint', async () => hints.some((h) => h.kind === 'messages'), 10_000);
      await bus.submit({ op: 'pause' });
      await waitFor('a requests hint', async () => hints.some((h) => h.kind === 'requests'), 10_000);
      await d.unwatch();
      await d.unwatch();
    });

    it("now() is the conversation's time: close to this machine's, never going back", async () => {
      const { bus } = await c.setup();
      const d = await c.deliverer(bus);
      const t = d.now();
      expect(Math.abs(t - Date.now())).toBeLessThan(5000);
      expect(d.now()).toBeGreaterThanOrEqual(t);
    });
  });
}
