/**
 * The files bus's turn step lists `.claimed/<direction>/` (for a claim an earlier attempt at the same ID
 * stranded there) only while the folder may hold one: at the first step after start-up and after a step
 * that failed mid-way — not at every delivery, when every claim this daemon made was settled.
 */
import * as fs from 'node:fs';
import { renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { DeliveryBus, Lease } from '../../../../src/bus/bus.js';
import { openBus } from '../../../../src/bus/open.js';
import type { Config } from '../../../../src/config/config.js';
import { loadConfig, locateConfig } from '../../../../src/config/load.js';
import { decide } from '../../../../src/core/turns.js';
import { waitFor } from '../../../helpers/harness.js';
import { me, quiet, tempWorld, type World } from '../../../contract/world.js';

vi.mock('node:fs', async (original) => {
  const real = await original<typeof import('node:fs')>();
  return { ...real, readdirSync: vi.fn(real.readdirSync) };
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
  vi.mocked(fs.readdirSync).mockClear(); // start-up's own listing (recovery) is not counted
});
afterEach(async () => {
  await d.close();
  await lease.release();
  await world.cleanup();
});

const dir = (name: string) => config.directions.find((x) => x.name === name)!.dir;
const claimsOf = (direction: string) => join(config.messageDir, '.claimed', direction);
const listings = (direction: string) =>
  vi.mocked(fs.readdirSync).mock.calls.filter(([p]) => p === claimsOf(direction)).length;

async function deliver(direction: string, name: string) {
  const tmp = join(dir(direction), `.${name}.tmp`);
  writeFileSync(tmp, JSON.stringify({ content: name }));
  renameSync(tmp, join(dir(direction), name));
  await d.rescan();
  await waitFor(`${name} waiting`, async () => (await d.queues()).some((q) => q.items.some((w) => w.name === name)));
  const w = (await d.queues()).flatMap((q) => q.items).find((x) => x.name === name)!;
  return d.commit(w, (s) => decide(s, w.direction, { policy: config.turns.policy, agents: config.order }));
}

describe("the claims folder's listing", () => {
  it('listed at the first step in a direction, not again while every claim was settled', async () => {
    expect((await deliver('c1_to_c2', 'a.json')).kind).toBe('committed');
    expect((await deliver('c2_to_c1', 'b.json')).kind).toBe('committed');
    expect((await deliver('c1_to_c2', 'c.json')).kind).toBe('committed');
    expect((await deliver('c2_to_c1', 'd.json')).kind).toBe('committed');
    expect(listings('c1_to_c2')).toBe(1);
    expect(listings('c2_to_c1')).toBe(1);
  });

  it('listed again after a step that failed mid-way (its claim put back), and the message taken then', async () => {
    expect((await deliver('c1_to_c2', 'a.json')).kind).toBe('committed');
    // A record already there under the next ID: the step refuses to reuse it, after its claim.
    const next = join(config.messageDir, 'archive', 'msg_0002.json');
    writeFileSync(next, '{}');
    await expect(deliver('c2_to_c1', 'b.json')).rejects.toThrow(/refusing to reuse a message ID/);
    unlinkSync(next);
    const before = listings('c2_to_c1');
    expect((await deliver('c2_to_c1', 'b.json')).kind).toBe('committed');
    expect(listings('c2_to_c1')).toBe(before + 1);
    expect(fs.readdirSync(claimsOf('c2_to_c1'))).toEqual([]);
  });
});
