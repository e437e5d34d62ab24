/**
 * The files bus's stamp of a record it has just archived: not read back from its file (an open, two reads
 * and a close on every delivery) — what this daemon wrote is what is there — while a record amended
 * meanwhile (a receipt that came first) is read back, and keeps what was added.
 */
import * as fs from 'node:fs';
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { DeliveryBus, Lease } from '../../../../src/bus/bus.js';
import { openBus } from '../../../../src/bus/open.js';
import type { Config } from '../../../../src/config/config.js';
import { loadConfig, locateConfig } from '../../../../src/config/load.js';
import { stamped } from '../../../../src/core/record.js';
import { decide } from '../../../../src/core/turns.js';
import { waitFor } from '../../../helpers/harness.js';
import { me, quiet, tempWorld, type World } from '../../../contract/world.js';

vi.mock('node:fs', async (original) => {
  const real = await original<typeof import('node:fs')>();
  return { ...real, readFileSync: vi.fn(real.readFileSync) };
});

let world: World;
let config: Config;
let d: DeliveryBus;
let lease: Lease;
beforeEach(async () => {
  world = tempWorld();
  config = loadConfig(locateConfig(world.configFile));
  d = openBus(config).delivery(quiet);
  lease = await d.lease(me(), () => {});
  await d.recover();
});
afterEach(async () => {
  await d.close();
  await lease.release();
  await world.cleanup();
});

const file = (id: string) => join(config.messageDir, 'archive', `${id}.json`);
const reads = (id: string) => vi.mocked(fs.readFileSync).mock.calls.filter(([p]) => p === file(id)).length;
const onDisk = (id: string) => JSON.parse(fs.readFileSync(file(id), 'utf8'));

async function commit(name: string) {
  const dir = config.directions.find((x) => x.name === 'c1_to_c2')!.dir;
  writeFileSync(join(dir, `.${name}.tmp`), JSON.stringify({ content: name }));
  renameSync(join(dir, `.${name}.tmp`), join(dir, name));
  await d.rescan();
  await waitFor(`${name} waiting`, async () => (await d.queues()).some((q) => q.items.some((w) => w.name === name)));
  const w = (await d.queues()).flatMap((q) => q.items).find((x) => x.name === name)!;
  const c = await d.commit(w, (s) => decide(s, w.direction, { policy: config.turns.policy, agents: config.order }));
  if (c.kind !== 'committed') throw new Error(c.kind);
  return c.record;
}

describe('the stamp', () => {
  it('of the record just archived: written without reading it back; stamped once', async () => {
    const r = await commit('a.json');
    const before = reads(r.id);
    await d.stamp(stamped(r, 'not_checked', false, '2026-01-01T00:00:01.000Z'));
    expect(reads(r.id)).toBe(before);
    expect(onDisk(r.id)).toMatchObject({ content: 'a.json', delivered_at: '2026-01-01T00:00:01.000Z' });
    await d.stamp(stamped(r, 'not_checked', false, '2026-01-01T00:00:02.000Z')); // a stamped record keeps its stamp
    expect(onDisk(r.id).delivered_at).toBe('2026-01-01T00:00:01.000Z');
  });

  it('of a record amended after it was archived: read back, and what was added is kept', async () => {
    const r = await commit('a.json');
    const received = { at: '2026-01-01T00:00:00.500Z', intact: true, prompt_id: 'p1' };
    expect(await d.amend(r.id, { received })).toBe(true);
    await d.stamp(stamped(r, 'not_checked', false, '2026-01-01T00:00:01.000Z'));
    expect(onDisk(r.id)).toMatchObject({ delivered_at: '2026-01-01T00:00:01.000Z', received });
  });
});
