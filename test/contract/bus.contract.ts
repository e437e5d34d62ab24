/**
 * The Bus contract (issue 14): what every bus promises, checked the same way for each (sidequest's one
 * contract suite for every store). `testBus(name, world)` registers the suite; `world()` makes a fresh,
 * empty conversation and returns its config file. The files bus runs it in files-bus.test.ts; the
 * PostgreSQL bus runs this very file against a real server.
 *
 * Every durable step of a turn step is also killed (SIGKILL, through a failpoint in a child process)
 * and recovery checked: every message in exactly one place, IDs 1..N, the state agreeing with the
 * archive (or lagging it by the one record the crash left unconfirmed), and an unfinished delivery
 * reported as possibly typed exactly when its state was saved.
 */
import { execa } from 'execa';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FencedError, type Bus, type DeliveryBus, type Lease, type Waiting } from '../../src/bus/bus.js';
import { openBus } from '../../src/bus/open.js';
import type { Config } from '../../src/config/config.js';
import { loadConfig, locateConfig } from '../../src/config/load.js';
import { personRecord, stamped } from '../../src/core/record.js';

import { decide } from '../../src/core/turns.js';
import { log } from '../../src/lib/log.js';
import { ROOT, waitFor } from '../helpers/harness.js';

/** A fixed moment for records the tests make (the record functions take their clock as input). */
const NOW = '2026-01-01T00:00:00.000Z';

export interface World {
  configFile: string;
  /** Extra environment a child process needs to reach this bus (a database URL). */
  env?: Record<string, string>;
  cleanup(): Promise<void>;
}

/**
 * A fresh conversation of two agents in a temp folder, for any bus: `extra` adds to its config (the
 * PostgreSQL bus's `bus` key). Removed by cleanup().
 */
export function tempWorld(extra: Record<string, unknown> = {}): World {
  const dir = mkdtempSync(join(tmpdir(), 'baton-contract-'));
  const configFile = join(dir, 'config.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      agents: { claude1: { kind: 'generic', command: 'x' }, claude2: { kind: 'generic', command: 'x' } },
      directions: { c1_to_c2: ['claude1', 'claude2'], c2_to_c1: ['claude2', 'claude1'] },
      inbox: { settle_ms: 200 },
      ...extra,
    }),
  );
  return { configFile, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
}

const CHILD = join(ROOT, 'test', 'contract', 'commit-child.mjs');
const quiet = log.create({ level: 0 });
const me = () => ({ pid: process.pid, host: hostname(), started_at: new Date().toISOString() });

export interface BusTraits {
  /**
   * The turn step is one transaction (the PostgreSQL bus): killed before its commit nothing happened, so
   * the "claimed" and "archived" failpoints leave the message waiting; killed after it, the delivery may
   * have been typed.
   */
  atomicStep?: boolean;
}

export function testBus(name: string, world: () => Promise<World>, traits: BusTraits = {}): void {
  describe(`the Bus contract: ${name}`, () => {
    let w: World | null = null;
    const open: Array<{ d: DeliveryBus; lease: Lease | null }> = [];
    afterEach(async () => {
      for (const o of open.splice(0)) {
        await o.d.close().catch(() => {});
        await o.lease?.release().catch(() => {});
      }
      await w?.cleanup();
      w = null;
    });

    const setup = async (): Promise<{ config: Config; bus: Bus }> => {
      w = await world();
      const config = loadConfig(locateConfig(w.configFile));
      return { config, bus: openBus(config) };
    };
    const deliverer = async (bus: Bus): Promise<DeliveryBus> => {
      const d = bus.delivery(quiet);
      const lease = await d.lease(me(), () => {});
      open.push({ d, lease });
      await d.recover();
      return d;
    };
    const dir = (config: Config, name: string) => config.directions.find((x) => x.name === name)!;
    const ready = async (d: DeliveryBus, n = 1): Promise<Waiting[]> => {
      let items: Waiting[] = [];
      await waitFor(
        `${n} waiting`,
        async () => {
          await d.rescan();
          items = (await d.queues()).flatMap((q) => q.items.filter((x) => x.ready));
          return items.length >= n;
        },
        10_000,
      );
      return items;
    };
    const step = (config: Config) => (w: Waiting) => (s: Parameters<Parameters<DeliveryBus['commit']>[1]>[0]) =>
      decide(s, w.direction, { policy: config.turns.policy, agents: config.order });

    it('one lease holder at a time; a second one is refused naming the holder, and gets it once released', async () => {
      const { bus } = await setup();
      const a = bus.delivery(quiet);
      const lease = await a.lease(me(), () => {});
      open.push({ d: a, lease });
      // Another process asking (pid 1 is alive and is not us): refused at once, naming the holder.
      await expect(bus.delivery(quiet).lease({ ...me(), pid: 1 }, () => {})).rejects.toMatchObject({
        name: 'LeaseHeldError',
        holder: { pid: process.pid },
      });
      expect((await bus.daemon()).running).toBe(true);
      lease.check(); // a live lease: no throw
      await lease.release();
      open.pop();
      const b = bus.delivery(quiet);
      const again = await b.lease(me(), () => {});
      open.push({ d: b, lease: again });
      expect(() => again.check()).not.toThrow(FencedError);
    });

    it('a posted message waits in its direction; the turn step archives it, passes the turn and empties the queue', async () => {
      const { config, bus } = await setup();
      const d = await deliverer(bus);
      await bus.post(dir(config, 'c1_to_c2'), { content: 'hello', sender: 'claude1' });
      const [first] = await ready(d);
      const c = await d.commit(first!, step(config)(first!));
      expect(c.kind).toBe('committed');
      if (c.kind !== 'committed') return;
      expect(c.record).toMatchObject({
        id: 'msg_0001',
        reply_to: null,
        sender: 'claude1',
        receiver: 'claude2',
        content: 'hello',
        delivered_at: null,
      });
      expect(c.state).toMatchObject({
        current_turn: 'claude2',
        message_counter: 1,
        last_message_id: 'msg_0001',
        pending_reply_to: 'msg_0001',
      });
      expect((await d.queues()).flatMap((q) => q.items)).toEqual([]);
      expect(await bus.readState()).toMatchObject({ current_turn: 'claude2', message_counter: 1 });
      await d.stamp(stamped(c.record, 'not_checked', false, new Date().toISOString()));
      expect((await bus.record('msg_0001'))?.delivered_at).toBeTruthy();
      expect(await bus.waitingCounts()).toEqual({ c1_to_c2: 0, c2_to_c1: 0 });
    });

    it("waitingFrom counts an agent's messages not yet delivered; amend adds a receipt to a record, keeping its stamp", async () => {
      const { config, bus } = await setup();
      const d = await deliverer(bus);
      expect(await d.waitingFrom('claude1')).toBe(0);
      await bus.post(dir(config, 'c1_to_c2'), { content: 'mine' });
      await waitFor(
        'counted',
        async () => {
          await d.rescan();
          return (await d.waitingFrom('claude1')) === 1;
        },
        10_000,
      );
      expect(await d.waitingFrom('claude2')).toBe(0);
      const [first] = await ready(d);
      const c = await d.commit(first!, step(config)(first!));
      if (c.kind !== 'committed') throw new Error(c.kind);
      expect(await d.waitingFrom('claude1')).toBe(0);
      const done = stamped(c.record, 'screen', false, new Date().toISOString());
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

    it('a step the current state does not allow is refused and leaves the message where it is', async () => {
      const { config, bus } = await setup();
      const d = await deliverer(bus);
      await bus.post(dir(config, 'c2_to_c1'), { content: 'out of turn' });
      const [held] = await ready(d);
      const c = await d.commit(held!, step(config)(held!));
      expect(c).toMatchObject({ kind: 'refused', decision: { action: 'hold' } });
      expect(await bus.waitingCounts()).toEqual({ c1_to_c2: 0, c2_to_c1: 1 });
      expect((await bus.archiveView()).n).toBe(0);
    });

    it('reject moves a message aside with its reason; update changes the state for every reader', async () => {
      const { config, bus } = await setup();
      const d = await deliverer(bus);
      await bus.post(dir(config, 'c1_to_c2'), { content: 'never' });
      const [x] = await ready(d);
      await d.reject(x!, 'a test says no');
      expect(await bus.rejectedCount()).toBe(1);
      expect((await bus.rejections(10)).items[0]).toMatchObject({ reason: 'a test says no' });
      expect(await bus.waitingCounts()).toEqual({ c1_to_c2: 0, c2_to_c1: 0 });
      const next = await d.update((s) => ({ ...s, paused: { at: 'now' } }));
      expect(next.paused).toEqual({ at: 'now' });
      expect((await bus.readState())?.paused).toEqual({ at: 'now' });
    });

    it("a person's requests: answered once, in order; withdrawn only before the daemon takes them", async () => {
      const { bus } = await setup();
      const d = await deliverer(bus);
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
    });

    it("a person's messages count on their own, and a request is found again after a crash", async () => {
      const { bus } = await setup();
      const d = await deliverer(bus);
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

    it('moderation: one approval per sender, refused with a reason, committed from the queue when approved', async () => {
      const { config, bus } = await setup();
      const d = await deliverer(bus);
      await bus.post(dir(config, 'c1_to_c2'), { content: 'may I?' });
      const [x] = await ready(d);
      expect(await d.moderate(x!)).toBe('queued');
      expect(await bus.approvalKeys()).toHaveLength(1);
      await bus.post(dir(config, 'c1_to_c2'), { content: 'and this?' });
      const [y] = await ready(d);
      expect(await d.moderate(y!)).toBe('held');
      const [a] = await d.approvals();
      expect(await d.examineApproval(a!)).toMatchObject({ kind: 'valid' });
      const c = await d.commit(
        a!,
        (s) => decide(s, a!.direction, { policy: config.turns.policy, agents: config.order }),
        { approved_by: 'req' },
      );
      expect(c).toMatchObject({ kind: 'committed', record: { id: 'msg_0001', approved_by: 'req', content: 'may I?' } });
      expect(await d.moderate(y!)).toBe('queued');
      const [b] = await d.approvals();
      expect(await d.refuse(b!, 'no')).toBe(true);
      expect(await d.approvals()).toEqual([]);
      expect(await bus.rejectedCount()).toBe(1);
    });

    // A daemon killed between every two durable steps of a turn step and its stamp: what recovery finds.
    const points = [
      { at: 'claimed', archived: 0, state: 0, unfinished: null },
      traits.atomicStep
        ? { at: 'archived', archived: 0, state: 0, unfinished: null }
        : { at: 'archived', archived: 1, state: 0, unfinished: { typed: false } },
      { at: 'state_saved', archived: 1, state: 1, unfinished: { typed: true } },
      { at: 'stamped', archived: 1, state: 1, unfinished: null },
    ] as const;
    for (const p of points) {
      it(`killed right after "${p.at}": nothing lost, IDs 1..N, the state agrees, an unfinished delivery is flagged only if it may have been typed`, async () => {
        const { config, bus } = await setup();
        await bus.post(dir(config, 'c1_to_c2'), { content: `killed after ${p.at}` });
        const child = await execa('node', [CHILD, w!.configFile], {
          env: { ...w!.env, BATON_FAILPOINT: p.at },
          reject: false,
        });
        expect(child.signal, `${child.stdout}\n${child.stderr}`).toBe('SIGKILL');
        expect((await bus.daemon()).running).toBe(false);
        // A new daemon takes over the dead one's lease and recovers.
        const d = bus.delivery(quiet);
        const lease = await d.lease(me(), () => {});
        open.push({ d, lease });
        const r = await d.recover();
        const view = await bus.archiveView();
        const waiting = Object.values(await bus.waitingCounts()).reduce((a, b) => a + b, 0);
        expect(view.n + waiting, 'the message is in exactly one place').toBe(1);
        expect(view.n).toBe(p.archived);
        expect(view.gaps).toBeNull();
        expect(r.state.message_counter).toBe(view.n); // recovery brings a lagging state up to the archive
        expect(r.unfinished ? { typed: r.unfinished.typed } : null).toEqual(p.unfinished);
        if (view.n) expect(r.state).toMatchObject({ current_turn: 'claude2', last_message_id: 'msg_0001' });
        if (!view.n) expect((await ready(d)).map((x) => x.message?.content)).toEqual([`killed after ${p.at}`]);
      });
    }
  });
}
