/** A person's messages (bus/person.ts): their own counter, found again by the request after a crash. */
import { describe, expect, it } from 'vitest';
import { personRecord } from '../../src/core/record.js';
import { type Contract, NOW } from './world.js';

export function personContract(c: Contract): void {
  describe("a person's messages", () => {
    it("a person's messages count on their own, and a request is found again after a crash", async () => {
      const { bus } = await c.setup();
      const d = await c.deliverer(bus);
      const r = await d.archivePersonMessage((id) =>
        personRecord({ id, to: 'claude1', content: 'hi', type: 'message', request: 'req-1', receivedAt: NOW }),
      );
      expect(r.id).toBe('user_0001');
      expect((await d.findPersonMessage('req-1'))?.id).toBe('user_0001');
      expect(await d.findPersonMessage('req-2')).toBeNull();
      expect(
        (
          await d.archivePersonMessage((id) =>
            personRecord({ id, to: 'claude2', content: 'ho', type: 'message', request: 'req-2', receivedAt: NOW }),
          )
        ).id,
      ).toBe('user_0002');
      expect((await bus.archiveView()).n).toBe(0); // agents' IDs untouched
    });
  });
}
