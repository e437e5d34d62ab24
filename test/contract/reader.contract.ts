/**
 * The read side (bus/reader.ts, bus/events.ts) beyond what the other parts check: where the conversation
 * lives, its machines, record IDs, approvals with their content, requests waiting, the bus's own checks,
 * nothing claimed at rest, and a follower of the event log told when events come.
 */
import { describe, expect, it } from 'vitest';
import { personRecord } from '../../src/core/record.js';
import { waitFor } from '../helpers/harness.js';
import { type Contract, NOW } from './world.js';

export function readerContract(c: Contract): void {
  describe('the read side', () => {
    it('where, hosts, recordIds, approvalsView, requestsWaiting, checks and relaying say what is stored', async () => {
      const { config, bus } = await c.setup();
      expect(bus.where.length).toBeGreaterThan(0);
      const d = await c.deliverer(bus);
      expect(await bus.hosts()).toEqual([
        expect.objectContaining({
          host: config.host,
          alive: true,
          holder: expect.objectContaining({ pid: process.pid }),
          agents: ['claude1', 'claude2'],
        }),
      ]);
      await bus.post(c.dir(config, 'c1_to_c2'), { content: 'may I say this?', subject: 'asking' });
      const [x] = await c.ready(d);
      expect(await d.moderate(x!)).toBe('queued');
      const [a] = await d.approvals();
      expect(await bus.approvalsView(6)).toEqual([
        { file: a!.key, from: 'claude1', to: 'claude2', type: null, subject: 'asking', content: 'may I ' },
      ]);
      expect((await d.commit(a!, c.step(config)(a!))).kind).toBe('committed');
      await d.archivePersonMessage((id) =>
        personRecord({ id, to: 'claude1', content: 'hi', type: 'message', request: 'r', receivedAt: NOW }),
      );
      expect((await bus.recordIds()).sort()).toEqual(['msg_0001', 'user_0001']);
      const asked = await bus.submit({ op: 'pause' });
      expect(await bus.requestsWaiting()).toBe(1);
      await d.answer((await d.takeRequest(asked))!.name, { ok: true, message: 'paused' });
      expect(await bus.requestsWaiting()).toBe(0);
      expect(await bus.relaying()).toBe(0); // nothing claimed and left unstored at rest
      for (const running of [true, false]) {
        const checks = await bus.checks(running);
        expect(
          checks.filter((k) => k.level === 'fail'),
          JSON.stringify(checks),
        ).toEqual([]);
      }
    });

    it('a follower of the event log is told of new events, and reads them from where it was', async () => {
      const { bus } = await c.setup();
      const d = await c.deliverer(bus);
      const before = await bus.events.head();
      let told = 0;
      const following = bus.events.follow(() => told++);
      try {
        await d.events.emit('held', { file: 'followed.json' });
        const seen: Array<Record<string, unknown>> = [];
        await waitFor(
          'told, and the event there',
          async () => {
            if (!told) return false;
            const head = await bus.events.head();
            seen.length = 0;
            await bus.events.read(head.gen, before.gen === head.gen ? before.end : 0, head.end, (e) => {
              seen.push(e);
            });
            return seen.some((e) => e.file === 'followed.json');
          },
          10_000,
        );
      } finally {
        following.close();
      }
    });
  });
}
