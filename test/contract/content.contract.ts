/**
 * The same content rules on every bus (docs/protocol.md §3, §10): what the files bus accepts, every bus
 * stores and gives back byte for byte — NUL, lone surrogates, U+FDD0 (the PostgreSQL bus's escape
 * character, sql/codec.ts), text that looks like its escapes — in a message's content, its own fields
 * and their keys, a posted message, a file, a person's message, a request, an event, a rejection's
 * reason. A file with a raw NUL byte is not JSON: every bus rejects it with the same reason.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { personRecord, stamped } from '../../src/core/record.js';
import { waitFor } from '../helpers/harness.js';
import { type Contract, NOW } from './world.js';

/** Every code unit PostgreSQL cannot hold, the escape character, and look-alikes of its escapes. */
const ODD = 'x\u0000y \ud800 lone \udfff low, a pair 🐈, \ufdd0 \ufdd00041 \ufdd0d800 \\u0000 \\ud800 é';
const ODD_FIELDS = { [`k\u0000${ODD}`]: [ODD, { '\ud800': '\ufdd0' }], data: { 'x\u0000': 'y\udc00' } };

export function contentContract(c: Contract): void {
  describe('content', () => {
    it('what the files bus accepts is stored and given back byte for byte: posted, as a file, a person, a request, an event', async () => {
      const { config, bus } = await c.setup();
      const d = await c.deliverer(bus);
      // A posted message, and a file with the same content written with JSON escapes.
      await bus.post(c.dir(config, 'c1_to_c2'), { content: ODD, type: 'message', ...ODD_FIELDS });
      const [posted] = await c.ready(d);
      const r1 = await d.commit(posted!, c.step(config)(posted!));
      if (r1.kind !== 'committed') throw new Error(r1.kind);
      await d.stamp(stamped(r1.record, 'screen', false, NOW));
      writeFileSync(join(c.dir(config, 'c2_to_c1').dir, 'odd.json'), JSON.stringify({ content: ODD, ...ODD_FIELDS }));
      const [file] = await c.ready(d);
      const r2 = await d.commit(file!, c.step(config)(file!));
      if (r2.kind !== 'committed') throw new Error(r2.kind);
      for (const id of ['msg_0001', 'msg_0002']) {
        const rec = await bus.record(id);
        expect(rec?.content, id).toBe(ODD);
        expect(rec, id).toMatchObject(ODD_FIELDS);
      }
      expect(await d.amend('msg_0001', { received: { at: NOW, intact: true, prompt_id: ODD } })).toBe(true);
      expect((await bus.record('msg_0001'))?.received).toEqual({ at: NOW, intact: true, prompt_id: ODD });
      expect((await bus.records()).map((r) => r.content)).toEqual([ODD, ODD]);

      // A person's message, a request and an event with it.
      const p = await d.archivePersonMessage((id) =>
        personRecord({ id, to: 'claude1', content: ODD, type: 'message', request: 'req-odd', receivedAt: NOW }),
      );
      expect((await bus.record(p.id))?.content).toBe(ODD);
      const name = await bus.submit({ op: 'send', to: 'claude1', content: ODD, type: 'message' });
      expect((await d.takeRequest(name))?.request).toEqual({
        op: 'send',
        to: 'claude1',
        content: ODD,
        type: 'message',
      });
      await d.answer(name, { ok: false, message: ODD });
      expect(await bus.awaitReply(name, 2000)).toEqual({ ok: false, message: ODD });
      await d.events.emit('held', { file: ODD, reason: ODD });
      const seen: Array<Record<string, unknown>> = [];
      const head = await bus.events.head();
      await bus.events.read(head.gen, 0, head.end, (e) => void seen.push(e));
      expect(seen.find((e) => e.event === 'held')).toMatchObject({ file: ODD, reason: ODD });

      // Rejected with a reason that quotes it, kept with that reason.
      await bus.post(c.dir(config, 'c1_to_c2'), { content: 'refused', type: 'message' });
      const [refused] = await c.ready(d);
      await d.reject(refused!, `because ${ODD}`);
      expect((await bus.rejections(5)).items[0]?.reason).toBe(`because ${ODD}`);
    });

    it('a file with a raw NUL byte is not JSON: rejected with the same reason on every bus', async () => {
      const { config, bus } = await c.setup();
      const d = await c.deliverer(bus);
      const text = '{"content":"x\u0000y"}';
      let parsed = '';
      try {
        JSON.parse(text);
      } catch (err) {
        parsed = (err as Error).message;
      }
      writeFileSync(join(c.dir(config, 'c1_to_c2').dir, 'nul.json'), text);
      await waitFor(
        'rejected',
        async () => {
          await d.rescan();
          await d.queues();
          return (await bus.rejectedCount()) === 1;
        },
        10_000,
      );
      expect((await bus.rejections(1)).items[0]).toMatchObject({ file: 'nul.json', reason: `invalid JSON: ${parsed}` });
      expect(d.takeRejected()).toEqual([
        { direction: c.dir(config, 'c1_to_c2'), file: 'nul.json', reason: `invalid JSON: ${parsed}` },
      ]);
    });
  });
}
