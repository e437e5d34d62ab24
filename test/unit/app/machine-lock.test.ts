/**
 * The machine daemon's lock (app/machine/daemon-lock.ts): taken in a state folder that does not exist yet —
 * the service's first start on a machine where no `baton up` ever wrote the registry — and refused to a
 * second taker while held.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { machineDaemon, takeMachineLock } from '../../../src/app/machine/daemon-lock.js';

let root = '';
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("the machine daemon's lock", () => {
  it('is taken in a state folder not made yet, and refused to a second taker while held', async () => {
    root = mkdtempSync(join(tmpdir(), 'baton-lock-'));
    const dir = join(root, 'state', 'baton');
    const opts = { stay: true, databaseEnv: 'h', onLost: () => {} };
    const first = await takeMachineLock(dir, opts);
    expect(first.ok).toBe(true);
    expect(machineDaemon(dir)?.pid).toBe(process.pid);
    const second = await takeMachineLock(dir, opts);
    expect(second.ok).toBe(false);
    if (first.ok) await first.release();
    expect(machineDaemon(dir)).toBeNull();
  }, 30_000);
});
