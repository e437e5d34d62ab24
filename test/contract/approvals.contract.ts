/**
 * Moderated mode's approval queue (bus/approvals.ts): one per sender, with no ID and no turn moved while it
 * waits, refused with a reason, committed from the queue when approved.
 */
import { describe, expect, it } from 'vitest';
import type { Contract } from './world.js';

export function approvalsContract(c: Contract): void {
  describe('moderation', () => {
    it('moderation: one approval per sender, refused with a reason, committed from the queue when approved', async () => {
      const { config, bus } = await c.setup();
      const d = await c.deliverer(bus);
      await bus.post(c.dir(config, 'c1_to_c2'), { content: 'may I?' });
      const [x] = await c.ready(d);
      expect(await d.moderate(x!)).toBe('queued');
      expect(await bus.approvalKeys()).toHaveLength(1);
      expect((await bus.archiveView()).n).toBe(0); // no ID, no turn moved, while it waits for a person
      expect(await bus.readState()).toMatchObject({ message_counter: 0, current_turn: 'claude1' });
      await bus.post(c.dir(config, 'c1_to_c2'), { content: 'and this?' });
      const [y] = await c.ready(d);
      expect(await d.moderate(y!)).toBe('held');
      const [a] = await d.approvals();
      expect(await d.examineApproval(a!)).toMatchObject({ kind: 'valid' });
      await d.update((s) => ({ ...s })); // the state written since it was queued: approved all the same
      const r = await d.commit(a!, c.step(config)(a!), { approved_by: 'req' });
      expect(r).toMatchObject({ kind: 'committed', record: { id: 'msg_0001', approved_by: 'req', content: 'may I?' } });
      expect(await bus.approvalKeys()).toEqual([]);
      expect(await d.moderate(y!)).toBe('queued');
      const [b] = await d.approvals();
      expect(await d.refuse(b!, 'no')).toBe(true);
      expect(await d.approvals()).toEqual([]);
      expect(await bus.rejectedCount()).toBe(1);
    });
  });
}
