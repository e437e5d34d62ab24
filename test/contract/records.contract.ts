/**
 * Counting an agent's messages not yet delivered (bus/queues.ts, waitingFrom) and amending an archived
 * record (bus/records.ts): a receipt is added, the stamp kept.
 */
import { describe, expect, it } from 'vitest';
import { personRecord, stamped } from '../../src/core/record.js';
import { waitFor } from '../helpers/harness.js';
import type { Contract } from './world.js';

export function recordsContract(c: Contract): void {
  describe('waiting counts and records', () => {
    it("waitingFrom counts an agent's messages not yet delivered; amend adds a receipt to a record, keeping its stamp", async () => {
      const { config, bus } = await c.setup();
      const d = await c.deliverer(bus);
      expect(await d.waitingFrom('claude1')).toBe(0);
      await bus.post(c.dir(config, 'c1_to_c2'), { content: 'mine' });
      await waitFor(
        'counted',
        async () => {
          await d.rescan();
          return (await d.waitingFrom('claude1')) === 1;
        },
        10_000,
      );
      expect(await d.waitingFrom('claude2')).toBe(0);
      const [first] = await c.ready(d);
      const r = await d.commit(first!, c.step(config)(first!));
      if (r.kind !== 'committed') throw new Error(r.kind);
      expect(await d.waitingFrom('claude1')).toBe(0);
      const done = stamped(r.record, 'screen', false, new Date().toISOString());
      await d.stamp(done);
      const received = { at: '2026-01-01T00:00:00.000Z', intact: true, prompt_id: 'p1' };
      expect(await d.amend('msg_0001', { received, confirmed: 'hook' })).toBe(true);
      expect(await bus.record('msg_0001')).toMatchObject({
        content: 'mine',
        delivered_at: done.delivered_at,
        received,
        confirmed: 'hook',
      });
      expect(await d.amend('msg_0099', { received })).toBe(false);
    });

    it("a note to all: each agent's delivery is merged in, agent by agent; a stamp without them keeps them", async () => {
      const { bus } = await c.setup();
      const d = await c.deliverer(bus);
      const note = await d.archivePersonMessage((id) =>
        personRecord({ id, to: 'all', content: 'hi all', type: 'message', request: 'r1', receivedAt: 'T0' }),
      );
      expect(await d.amend(note.id, { deliveries: { claude1: { at: null } } })).toBe(true);
      expect(await d.amend(note.id, { deliveries: { claude2: { at: 'T2', confirmed: 'screen' } } })).toBe(true);
      expect(await d.amend(note.id, { deliveries: { claude1: { at: 'T1', confirmed: 'screen' } } })).toBe(true);
      const { deliveries: _none, ...bare } = (await bus.record(note.id))!;
      await d.stamp(stamped(bare as typeof note, 'screen', false, 'T1'));
      expect(await bus.record(note.id)).toMatchObject({
        receiver: 'all',
        delivered_at: 'T1',
        deliveries: { claude1: { at: 'T1', confirmed: 'screen' }, claude2: { at: 'T2', confirmed: 'screen' } },
      });
    });
  });
}
