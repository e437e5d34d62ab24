/**
 * The rescan is the safety net behind fs.watch: a file whose hint never came (the watch lost, the event
 * queue overflowed) is found by the next rescan — whether the folder was read again or its listing kept
 * (lib/stat-cache.ts) — and a file that vanished is forgotten.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { Intake } from '../../../../src/bus/folders/intake.js';
import { log } from '../../../../src/lib/log.js';

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});
afterEach(() => vi.useRealTimers());

function intake() {
  const root = mkdtempSync(join(tmpdir(), 'baton-intake-'));
  made.push(root);
  const dir = join(root, 'a_to_b');
  mkdirSync(dir);
  const i = new Intake([{ name: 'a_to_b', from: 'a', to: 'b', dir }], {
    maxBytes: 65536,
    settleMs: 300,
    rejectedDir: join(root, 'rejected'),
    asideDir: join(root, '.rejecting'),
    alsoWatch: [],
    events: { emit: async () => {} } as never,
    log: log.create({ level: 0 }),
  });
  const names = async () => (await i.queues())[0]!.items.map((w) => w.name);
  return { i, dir, names };
}
const msg = (dir: string, name: string) => writeFileSync(join(dir, name), JSON.stringify({ content: name }));

describe('the rescan without hints (no watch at all)', () => {
  it('finds each file written since the last rescan, however soon after it', async () => {
    const { i, dir, names } = intake();
    await i.rescan();
    expect(await names()).toEqual([]);
    msg(dir, 'm1.json');
    await i.rescan();
    expect(await names()).toEqual(['m1.json']);
    msg(dir, 'm2.json'); // the same clock tick, maybe: the folder's times are racy and it is read again
    await i.rescan();
    expect(await names()).toEqual(['m1.json', 'm2.json']);
  });

  it('finds a file written after a listing it kept, and forgets one removed', async () => {
    const { i, dir, names } = intake();
    msg(dir, 'm1.json');
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 10_000); // the folder's last change long past: its listing is kept
    await i.rescan();
    await i.rescan();
    expect(await names()).toEqual(['m1.json']);
    msg(dir, 'm2.json');
    vi.setSystemTime(Date.now() + 10_000);
    await i.rescan();
    expect(await names()).toEqual(['m1.json', 'm2.json']);
    rmSync(join(dir, 'm1.json'));
    vi.setSystemTime(Date.now() + 10_000);
    await i.rescan();
    expect(await names()).toEqual(['m2.json']);
  });
});
