/** The writer's lease (bus/lease.ts, Tenure): one live holder at a time, a newcomer refused naming it. */
import { describe, expect, it } from 'vitest';
import { FencedError } from '../../src/bus/bus.js';
import { type Contract, me, quiet } from './world.js';

export function leaseContract(c: Contract): void {
  describe('the lease', () => {
    it('one lease holder at a time; a second one is refused naming the holder, and gets it once released', async () => {
      const { bus } = await c.setup();
      const a = bus.delivery(quiet);
      const lease = await a.lease(me(), () => {});
      c.keep(a, lease);
      // Another process asking (pid 1 is alive and is not us): refused at once, naming the holder.
      await expect(bus.delivery(quiet).lease({ ...me(), pid: 1 }, () => {})).rejects.toMatchObject({
        name: 'LeaseHeldError',
        holder: { pid: process.pid },
      });
      expect((await bus.daemon()).running).toBe(true);
      // What a command asks before refusing like a daemon: the live holder, named.
      expect(await bus.leaseHolder()).toMatchObject({ kind: 'alive', holder: { pid: process.pid } });
      lease.check(); // a live lease: no throw
      await lease.release();
      c.forgetLast();
      expect(await bus.leaseHolder()).toEqual({ kind: 'free' });
      const b = bus.delivery(quiet);
      const again = await b.lease(me(), () => {});
      c.keep(b, again);
      expect(() => again.check()).not.toThrow(FencedError);
    });
  });
}
