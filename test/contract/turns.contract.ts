/**
 * The queues and the turn step (bus/queues.ts, bus/turns.ts): a posted message waits in its direction,
 * the turn step archives it and passes the turn, a step the state does not allow leaves it where it is,
 * a rejected message goes aside with its reason (its sender to be told, once), and a state change is seen
 * by every reader.
 */
import { describe, expect, it } from 'vitest';
import { stamped } from '../../src/core/record.js';
import type { Contract } from './world.js';

export function turnsContract(c: Contract): void {
  describe('the queues and the turn step', () => {
    it('a posted message waits in its direction; the turn step archives it, passes the turn and empties the queue', async () => {
      const { config, bus } = await c.setup();
      const d = await c.deliverer(bus);
      await bus.post(c.dir(config, 'c1_to_c2'), { content: 'hello', sender: 'claude1' });
      const [first] = await c.ready(d);
      const r = await d.commit(first!, c.step(config)(first!));
      expect(r.kind).toBe('committed');
      if (r.kind !== 'committed') return;
      expect(r.record).toMatchObject({
        id: 'msg_0001',
        reply_to: null,
        sender: 'claude1',
        receiver: 'claude2',
        content: 'hello',
        delivered_at: null,
      });
      expect(r.state).toMatchObject({
        current_turn: 'claude2',
        message_counter: 1,
        last_message_id: 'msg_0001',
        pending_reply_to: 'msg_0001',
      });
      expect(d.state()).toEqual(r.state); // the daemon's copy moved on with the step
      expect(await bus.record('msg_0001')).toMatchObject({ id: 'msg_0001', delivered_at: null }); // to every reader
      await d.settle(); // its delivery must wait: the archive shows it, unstamped, until its stamp
      expect(await bus.record('msg_0001')).toMatchObject({ id: 'msg_0001', delivered_at: null });
      expect((await bus.archiveView()).n).toBe(1);
      expect((await d.queues()).flatMap((q) => q.items)).toEqual([]);
      expect(await bus.readState()).toMatchObject({ current_turn: 'claude2', message_counter: 1 });
      await d.stamp(stamped(r.record, 'not_checked', false, new Date().toISOString()));
      expect((await bus.record('msg_0001'))?.delivered_at).toBeTruthy();
      expect(await bus.waitingCounts()).toEqual({ c1_to_c2: 0, c2_to_c1: 0 });
    });

    it('a step the current state does not allow is refused and leaves the message where it is', async () => {
      const { config, bus } = await c.setup();
      const d = await c.deliverer(bus);
      await bus.post(c.dir(config, 'c2_to_c1'), { content: 'out of turn' });
      const [held] = await c.ready(d);
      const r = await d.commit(held!, c.step(config)(held!));
      expect(r).toMatchObject({ kind: 'refused', decision: { action: 'hold' } });
      expect(await bus.waitingCounts()).toEqual({ c1_to_c2: 0, c2_to_c1: 1 });
      expect((await bus.archiveView()).n).toBe(0);
    });

    it('reject moves a message aside with its reason; update changes the state for every reader', async () => {
      const { config, bus } = await c.setup();
      const d = await c.deliverer(bus);
      const posted = await bus.post(c.dir(config, 'c1_to_c2'), { content: 'never' });
      const [x] = await c.ready(d);
      await d.reject(x!, 'a test says no');
      const told = { direction: c.dir(config, 'c1_to_c2'), file: posted.kind === 'posted' ? posted.name : '?' };
      expect(d.takeRejected()).toEqual([{ ...told, reason: 'a test says no' }]);
      expect(d.takeRejected()).toEqual([]); // each once
      expect(await bus.rejectedCount()).toBe(1);
      expect((await bus.rejections(10)).items[0]).toMatchObject({ reason: 'a test says no' });
      expect(await bus.waitingCounts()).toEqual({ c1_to_c2: 0, c2_to_c1: 0 });
      const next = await d.update((s) => ({ ...s, paused: { at: 'now' } }));
      expect(next.paused).toEqual({ at: 'now' });
      expect((await bus.readState())?.paused).toEqual({ at: 'now' });
      expect(d.state().paused).toEqual({ at: 'now' });
    });
  });
}
