/**
 * What `up`, `up --fresh` and `doctor --repair` do while no daemon runs (bus/admin.ts): a conversation made
 * once, the lease held around a repair that overwrites the state, and the whole conversation set aside so
 * the next daemon starts a new one.
 */
import { describe, expect, it } from 'vitest';
import { initialState } from '../../src/core/turns.js';
import { type Contract, me, NOW, quiet } from './world.js';

export function adminContract(c: Contract): void {
  describe('admin', () => {
    it('prepare writes the first state once; exclusive holds the lease while the state is overwritten', async () => {
      const { config, bus } = await c.setup();
      const first = initialState(config.firstTurn);
      await bus.prepare(first);
      expect(await bus.readState()).toMatchObject(first);
      await bus.prepare({ ...first, current_turn: 'claude2' }); // a state is there: kept
      expect(await bus.readState()).toMatchObject(first);
      const repaired = { ...first, paused: { at: NOW } };
      expect(
        await bus.exclusive(async () => {
          expect(await bus.leaseHolder()).toMatchObject({ kind: 'alive' });
          await expect(bus.delivery(quiet).lease({ ...me(), pid: 1 }, () => {})).rejects.toMatchObject({
            name: 'LeaseHeldError',
          });
          await bus.overwriteState(repaired);
          return 'done';
        }),
      ).toBe('done');
      expect(await bus.leaseHolder()).toEqual({ kind: 'free' }); // released however fn ended
      await expect(bus.exclusive(async () => Promise.reject(new Error('repair failed')))).rejects.toThrow(
        'repair failed',
      );
      expect(await bus.leaseHolder()).toEqual({ kind: 'free' });
      expect(await bus.readState()).toMatchObject(repaired);
    });

    it('setAside keeps the conversation somewhere else; the next daemon starts a new one', async () => {
      const { config, bus } = await c.setup();
      const d = bus.delivery(quiet);
      const lease = await d.lease(me(), () => {});
      await d.recover();
      await bus.post(c.dir(config, 'c1_to_c2'), { content: 'the old one' });
      const [w] = await c.ready(d);
      expect((await d.commit(w!, c.step(config)(w!))).kind).toBe('committed');
      await bus.post(c.dir(config, 'c2_to_c1'), { content: 'still waiting' });
      await c.ready(d);
      await d.close();
      await lease.release(); // set aside only while no daemon runs
      expect(await bus.setAside(initialState(config.firstTurn))).toEqual(expect.any(String));
      expect((await bus.archiveView()).n).toBe(0);
      expect(await bus.waitingCounts()).toEqual({ c1_to_c2: 0, c2_to_c1: 0 });
      const next = await c.deliverer(bus);
      expect(next.state()).toMatchObject({ current_turn: config.firstTurn, message_counter: 0 });
      await bus.post(c.dir(config, 'c1_to_c2'), { content: 'the new one' });
      const [x] = await c.ready(next);
      const r = await next.commit(x!, c.step(config)(x!));
      expect(r).toMatchObject({ kind: 'committed', record: { id: 'msg_0001', content: 'the new one' } });
    });
  });
}
