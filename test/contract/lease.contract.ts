/**
 * The writer's lease (bus/lease.ts, Tenure): one live holder at a time, a newcomer refused naming it; each
 * holder one generation above the last, its fence token that generation.
 */
import { describe, expect, it } from 'vitest';
import { FencedError, fenceToken } from '../../src/bus/bus.js';
import { type Contract, me, quiet } from './world.js';

export function leaseContract(c: Contract): void {
  describe('the lease', () => {
    it('one lease holder at a time; a second one is refused naming the holder, and gets it once released', async () => {
      const { bus } = await c.setup();
      const a = bus.delivery(quiet);
      const lost: string[] = [];
      const lease = await a.lease(me(), (why) => lost.push(why));
      lease.onLost((why) => lost.push(why));
      c.keep(a, lease);
      expect(lease.holder).toMatchObject({ pid: process.pid });
      expect(lease.fence.token).toBe(fenceToken(lease.generation));
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
      expect(lost).toEqual([]); // neither a newcomer refused nor its own release loses it
      c.forgetLast();
      expect(await bus.leaseHolder()).toEqual({ kind: 'free' });
      const b = bus.delivery(quiet);
      const again = await b.lease(me(), () => {});
      c.keep(b, again);
      expect(() => again.check()).not.toThrow(FencedError);
      expect(again.generation).toBeGreaterThan(lease.generation); // what fences the one before
      expect(again.fence).toEqual({ key: lease.fence.key, token: fenceToken(again.generation) });
    });
  });
}
