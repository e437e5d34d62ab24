/**
 * The machine's registry (app/machine/registry.ts) is written whole or not at all: a writer killed with
 * SIGKILL at any moment leaves the last good list (and at most a temp file, swept by the next writer once
 * its pid is gone). Real writer processes, killed mid-write, against dist/ — so here, not in the unit tier:
 * each round waits out the killed writer's lock (stale after 5 s, here scaled to 1.25 s).
 */
import { execa } from 'execa';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { readRegistry, registryFile } from '../../src/app/machine/registry.js';
import type { Config } from '../../src/config/config.js';
import { ROOT } from '../helpers/harness.js';

let dir = '';
/** The writers' times scaled (lib/timing.ts): each waits out the killed one's lock in 1.25 s, not 5 s. */
const SCALED = { BATON_TIME_SCALE: '0.25' };
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const config = (n: number) =>
  ({
    file: `/p/${n}/config.json`,
    baseDir: `/p/${n}`,
    messageDir: `/p/${n}/messages`,
    bus: { kind: 'files' },
  }) as Config;

describe('the machine registry', () => {
  it('survives writers killed mid-write', async () => {
    dir = mkdtempSync(join(tmpdir(), 'baton-reg-'));
    const mod = join(ROOT, 'dist', 'app', 'machine', 'registry.js');
    // Each writer adds entries as fast as it can, with a long field so a write takes a while.
    const script = `
      const { register, entryOf } = await import(${JSON.stringify(mod)});
      for (let i = 0; ; i++) await register(process.argv[1], entryOf({ file: '/w/' + i + '/' + 'x'.repeat(20000), baseDir: '/w/' + i, messageDir: '/w/' + i + '/m', bus: { kind: 'files' } }, null));`;
    const written = () => (existsSync(registryFile(dir)) ? statSync(registryFile(dir)).ino : 0);
    for (let round = 0; round < 4; round++) {
      const w = execa('node', ['--input-type=module', '-e', script, dir], { reject: false, env: SCALED });
      // Kill it mid-stream, not before its first write: node's start-up alone can take 300 ms on a busy machine,
      // and from the second round on the writer first waits out the killed one's lock (stale after 5 s).
      const before = written();
      for (let t = 0; t < 400 && written() === before; t++) await sleep(25);
      await sleep(40 + round * 70);
      w.kill('SIGKILL');
      await w;
      const read = readRegistry(dir);
      expect(read.ok, read.ok ? '' : read.problem).toBe(true);
      expect(read.registry.conversations.length).toBeGreaterThan(0);
    }
    // A torn temp file of a dead writer is never read, and the next write (once the dead writer's lock is
    // stale) sweeps it.
    writeFileSync(join(dir, '.baton-999999-0123456789ab.tmp'), '{"version":1,"conversations":[{"ho');
    expect(readRegistry(dir).ok).toBe(true);
    const last = `const { register, entryOf } = await import(${JSON.stringify(mod)});
      await register(process.argv[1], entryOf(${JSON.stringify(config(7))}, null));`;
    expect(
      (await execa('node', ['--input-type=module', '-e', last, dir], { reject: false, env: SCALED })).exitCode,
    ).toBe(0);
    expect(readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    expect(readRegistry(dir).registry.conversations.at(-1)?.home).toBe('/p/7');
  }, 60_000);
});
