/**
 * The files bus's record of a committed message: held in state.json until its stamp writes archive/<id>.json
 * once (a file made and freed less per message), counted as archived by every reader meanwhile, archived
 * unstamped when its delivery must wait. A record stamped again is not read back from its file (an open, two
 * reads and a close on every delivery), while one amended meanwhile (a receipt that came first) is, and keeps
 * what was added.
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
const stateFile = () => JSON.parse(fs.readFileSync(join(config.messageDir, 'state.json'), 'utf8'));

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
  it('of a committed record: state.json holds it, every reader counts it archived; the stamp writes it once', async () => {
    const r = await commit('a.json');
    expect(fs.existsSync(file(r.id))).toBe(false);
    expect(stateFile()).toMatchObject({ message_counter: 1, delivering: { id: r.id, delivered_at: null } });
    const reader = openBus(config);
    expect(await reader.record(r.id)).toMatchObject({ id: r.id, content: 'a.json', delivered_at: null });
    expect(await reader.recordIds()).toEqual([r.id]);
    expect(await reader.archiveView()).toMatchObject({ n: 1, gaps: null, last: { id: r.id } });
    expect(await d.record(r.id)).toMatchObject({ id: r.id, delivered_at: null });
    await d.stamp(stamped(r, 'not_checked', false, '2026-01-01T00:00:01.000Z'));
    await d.stamp(stamped(r, 'not_checked', false, '2026-01-01T00:00:02.000Z')); // a stamped record keeps its stamp
    expect(reads(r.id)).toBe(0); // what this daemon wrote last is not read back
    expect(onDisk(r.id)).toMatchObject({ content: 'a.json', delivered_at: '2026-01-01T00:00:01.000Z' });
  });

  it('of a delivery that had to wait: archived unstamped at once, then stamped over', async () => {
    const r = await commit('a.json');
    await d.settle();
    expect(onDisk(r.id)).toMatchObject({ id: r.id, delivered_at: null });
    await d.stamp(stamped(r, 'not_checked', false, '2026-01-01T00:00:01.000Z'));
    expect(onDisk(r.id)).toMatchObject({ delivered_at: '2026-01-01T00:00:01.000Z' });
  });

  it('of a record amended before it: what was added is kept, in state.json meanwhile and in the record', async () => {
    const r = await commit('a.json');
    const received = { at: '2026-01-01T00:00:00.500Z', intact: true, prompt_id: 'p1' };
    expect(await d.amend(r.id, { received })).toBe(true);
    expect(stateFile().delivering).toMatchObject({ id: r.id, received });
    await d.stamp(stamped(r, 'not_checked', false, '2026-01-01T00:00:01.000Z'));
    expect(onDisk(r.id)).toMatchObject({ delivered_at: '2026-01-01T00:00:01.000Z', received });
  });

  it('of a record amended after it was archived: read back, and what was added is kept', async () => {
    const r = await commit('a.json');
    await d.settle();
    const received = { at: '2026-01-01T00:00:00.500Z', intact: true, prompt_id: 'p1' };
    expect(await d.amend(r.id, { received })).toBe(true);
    await d.stamp(stamped(r, 'not_checked', false, '2026-01-01T00:00:01.000Z'));
    expect(reads(r.id)).toBeGreaterThan(0);
    expect(onDisk(r.id)).toMatchObject({ delivered_at: '2026-01-01T00:00:01.000Z', received });
  });

  it('killed with a record held: the next start archives it from state.json and reports it maybe typed', async () => {
    const r = await commit('a.json');
    await d.close();
    await lease.release(); // as a kill leaves it, but for the lock (the lease contract covers taking that over)
    d = openBus(config).delivery(quiet);
    lease = await d.lease(me(), () => {});
    const rec = await d.recover();
    expect(onDisk(r.id)).toMatchObject({ id: r.id, delivered_at: null });
    expect(rec.unfinished).toMatchObject({ record: { id: r.id }, typed: true });
    expect(rec.state).toMatchObject({ message_counter: 1, last_message_id: r.id });
    expect(stateFile().delivering).toBeUndefined();
  });
});
