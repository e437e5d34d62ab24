/**
 * A person's requests (bus/requests.ts): answered once, in order; withdrawn only before the daemon takes them;
 * one forwarded by a daemon reaches the daemon that carries it out (on one machine, itself).
 */
import { describe, expect, it } from 'vitest';
import type { Contract } from './world.js';

export function requestsContract(c: Contract): void {
  describe("a person's requests", () => {
    it("a person's requests: answered once, in order; withdrawn only before the daemon takes them", async () => {
      const { bus } = await c.setup();
      const d = await c.deliverer(bus);
      const a = await bus.submit({ op: 'pause' });
      const b = await bus.submit({ op: 'resume' });
      expect(await d.requests()).toEqual([a, b]);
      expect(await bus.withdraw(b)).toBe(true);
      const taken = await d.takeRequest(a);
      expect(taken?.request).toEqual({ op: 'pause' });
      expect(await bus.withdraw(a)).toBe(false); // taken: its answer follows
      await d.answer(taken!.name, { ok: true, message: 'paused' });
      expect(await bus.awaitReply(a, 2000)).toEqual({ ok: true, message: 'paused' });
      expect(await d.requests()).toEqual([]);
      await d.forward({ op: 'pause' });
      const [forwarded] = await d.requests();
      expect((await d.takeRequest(forwarded!))?.request).toEqual({ op: 'pause' });
    });
  });
}
