/**
 * What every part of the Bus contract (test/contract/*.contract.ts) works with: a fresh conversation per
 * case (`World`, from the bus's test file), the bus opened on it, a daemon's side holding the lease, and
 * the helpers the cases share. Everything a case opens is closed after it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import type { Approval, Bus, DeliveryBus, Lease, Step, Waiting } from '../../src/bus/bus.js';
import { openBus } from '../../src/bus/open.js';
import type { Config } from '../../src/config/config.js';
import { loadConfig, locateConfig } from '../../src/config/load.js';
import { decide } from '../../src/core/turns.js';
import { log } from '../../src/lib/log.js';
import { waitFor } from '../helpers/harness.js';

/** A fixed moment for records the tests make (the record functions take their clock as input). */
export const NOW = '2026-01-01T00:00:00.000Z';

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

export interface BusTraits {
  /**
   * The turn step is one transaction (the PostgreSQL bus), with an "archived" failpoint inside it: killed there
   * nothing happened, and the message waits. (The files bus's step commits in one write too, state.json with the
   * record in it, and has no point between.) Killed after either's commit, the delivery may have been typed.
   */
  atomicStep?: boolean;
}

export const quiet = log.create({ level: 0 });
export const me = () => ({ pid: process.pid, host: hostname(), started_at: new Date().toISOString() });

/** What a contract case is given: opening a conversation, a daemon's side on it, and small helpers. */
export interface Contract {
  traits: BusTraits;
  /** A fresh conversation (this case's World) and the bus opened on it. */
  setup(): Promise<{ config: Config; bus: Bus }>;
  /** The world setup() made (its config file, the environment a child process needs). */
  world(): World;
  /** A daemon's side holding the lease, recovered; closed and released after the case. */
  deliverer(bus: Bus): Promise<DeliveryBus>;
  /** Close `d` and release `lease` after the case. */
  keep(d: DeliveryBus, lease: Lease | null): void;
  /** Stop closing the last one kept (the case released it itself). */
  forgetLast(): void;
  dir(config: Config, name: string): Config['directions'][number];
  /** At least `n` ready waiting messages, looked for again until they are there. */
  ready(d: DeliveryBus, n?: number): Promise<Waiting[]>;
  /** The turn step for `w` (a waiting message, or an approval) under the config's rules. */
  step(config: Config): (w: Waiting | Approval) => Step;
}

/** Make the helpers for one bus's suite (inside its describe), with their clean-up after each case. */
export function contract(world: () => Promise<World>, traits: BusTraits): Contract {
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
  return {
    traits,
    setup: async () => {
      w = await world();
      const config = loadConfig(locateConfig(w.configFile));
      return { config, bus: openBus(config) };
    },
    world: () => w!,
    deliverer: async (bus) => {
      const d = bus.delivery(quiet);
      const lease = await d.lease(me(), () => {});
      open.push({ d, lease });
      await d.recover();
      return d;
    },
    keep: (d, lease) => void open.push({ d, lease }),
    forgetLast: () => void open.pop(),
    dir: (config, name) => config.directions.find((x) => x.name === name)!,
    ready: async (d, n = 1) => {
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
    },
    step: (config) => (w) => (s) => decide(s, w.direction, { policy: config.turns.policy, agents: config.order }),
  };
}
