/**
 * The files bus's hints against real folders (no daemon, no tmux): the daemon's own claim of a message is
 * no hint that something came (in a ping-pong it woke a pass that found nothing and a look at the
 * receiver's pane, for every message), while a new file under that very name still is one.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DeliveryBus, Hint, Lease } from '../../../../src/bus/bus.js';
import { openBus } from '../../../../src/bus/open.js';
import type { Config } from '../../../../src/config/config.js';
import { loadConfig, locateConfig } from '../../../../src/config/load.js';
import { decide } from '../../../../src/core/turns.js';
import { waitFor } from '../../../helpers/harness.js';
import { me, quiet, tempWorld, type World } from '../../../contract/world.js';

let world: World;
let config: Config;
let d: DeliveryBus;
let lease: Lease;
const hints: string[] = [];

beforeEach(async () => {
  world = tempWorld();
  config = loadConfig(locateConfig(world.configFile));
  d = openBus(config).delivery(quiet);
  lease = await d.lease(me(), () => {});
  await d.recover();
  hints.length = 0;
  await d.watch((h: Hint) => void hints.push(h.kind === 'messages' ? (h.direction ?? '') : h.kind));
});
afterEach(async () => {
  await d.close();
  await lease.release();
  await world.cleanup();
});

const dir = (name: string) => config.directions.find((x) => x.name === name)!.dir;

/** Written as an agent writes one: a temp name, then renamed into the folder. */
function post(direction: string, name: string, content: string): void {
  const tmp = join(dir(direction), `.${name}.tmp`);
  writeFileSync(tmp, JSON.stringify({ content }));
  renameSync(tmp, join(dir(direction), name));
}

async function take(name: string) {
  await waitFor(`${name} waiting`, async () => (await d.queues()).some((q) => q.items.some((w) => w.name === name)));
  const w = (await d.queues()).flatMap((q) => q.items).find((x) => x.name === name)!;
  hints.length = 0; // from here on: what the claim and later writes give
  const c = await d.commit(w, (s) => decide(s, w.direction, { policy: config.turns.policy, agents: config.order }));
  expect(c.kind).toBe('committed');
}

describe("the daemon's own moves", () => {
  it('a claim gives no hint; the next file in that folder does (the watcher keeps a folder’s events in order)', async () => {
    post('c1_to_c2', 'a.json', 'one');
    await waitFor('the hint for a.json', () => hints.length > 0);
    await take('a.json');
    // Written after the claim: its event comes after the claim's, so once its hint is here the claim's was read.
    post('c1_to_c2', 'b.json', 'two');
    await waitFor('the hint for b.json', async () =>
      (await d.queues()).some((q) => q.items.some((w) => w.name === 'b.json')),
    );
    await waitFor('a hint', () => hints.length > 0);
    expect(hints).toEqual(['c1_to_c2']);
  });

  it('a new file under the name just claimed is a hint, and is taken', async () => {
    post('c1_to_c2', 'a.json', 'one');
    await take('a.json');
    post('c1_to_c2', 'a.json', 'the same name again');
    await waitFor('its hint', () => hints.length > 0);
    await waitFor('a.json waiting again', async () =>
      (await d.queues()).some((q) =>
        q.items.some((w) => w.name === 'a.json' && w.message?.content === 'the same name again'),
      ),
    );
  });
});
