/**
 * The files bus's fencing check (lock.ts check(), before every durable write): refused once another
 * holder wrote the next generation or `daemon.gen` is gone, and not reading the file while it is still
 * the very one this holder wrote (it was read three times a delivery).
 */
import * as fs from 'node:fs';
import { mkdtempSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Lease } from '../../../../src/bus/bus.js';
import { layout, type Layout } from '../../../../src/bus/files/layout.js';
import { acquireLock } from '../../../../src/bus/files/lock.js';
import { writeAtomic } from '../../../../src/lib/fsx.js';

vi.mock('node:fs', async (original) => {
  const real = await original<typeof import('node:fs')>();
  return { ...real, readFileSync: vi.fn(real.readFileSync) };
});

let root: string;
let l: Layout;
let lease: Lease;
beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), 'baton-fence-'));
  l = layout({ messageDir: root });
  lease = await acquireLock(l);
});
afterEach(async () => {
  await lease.release().catch(() => {});
  rmSync(root, { recursive: true, force: true });
});

const genReads = () => vi.mocked(fs.readFileSync).mock.calls.filter(([p]) => p === l.generation).length;

describe('the fencing check', () => {
  it('passes without reading daemon.gen while it is the file this holder wrote', () => {
    const before = genReads();
    for (let i = 0; i < 5; i++) lease.check();
    expect(genReads()).toBe(before);
  });

  it('refuses once another holder wrote the next generation (a new file, as a take-over writes it)', async () => {
    lease.check();
    await writeAtomic(l.generation, `${lease.generation + 1}\n`);
    expect(() => lease.check()).toThrow(
      new RegExp(`another daemon took over .* \\(generation ${lease.generation + 1}, this one ${lease.generation}\\)`),
    );
    expect(() => lease.check()).toThrow(/another daemon took over/); // and stays refused
  });

  it('refuses when daemon.gen is gone', () => {
    unlinkSync(l.generation);
    expect(() => lease.check()).toThrow(
      new RegExp(`another daemon took over .* \\(generation 0, this one ${lease.generation}\\)`),
    );
  });

  it('goes on when the file was written anew with this very generation (read once, then known)', async () => {
    await writeAtomic(l.generation, `${lease.generation}\n`);
    const before = genReads();
    lease.check();
    lease.check();
    expect(genReads()).toBe(before + 1);
  });
});
