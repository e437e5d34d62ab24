/**
 * The folders a daemon serves from (bus/anchor.ts), on the files bus's daemon side: a direction folder a
 * person removed inside a live project is made again; the message folder or the project moved away,
 * removed or replaced stops the daemon (FolderGone) and nothing of it is made again — not by a rescan, not
 * by a lease taken again. Only the first lease makes a missing message folder, below a project that is there.
 */
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FolderGone } from '../../../../src/bus/anchor.js';
import type { DeliveryBus, Lease } from '../../../../src/bus/bus.js';
import { openBus } from '../../../../src/bus/open.js';
import { loadConfig } from '../../../../src/config/load.js';
import { makeDirBelow } from '../../../../src/lib/fsx.js';
import { log } from '../../../../src/lib/log.js';

const quiet = log.create({ level: 0 });
const made: string[] = [];
const open: Array<{ d: DeliveryBus; lease: Lease }> = [];
afterEach(async () => {
  for (const o of open.splice(0)) {
    await o.d.close().catch(() => {});
    await o.lease.release().catch(() => {});
  }
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A project folder with a config and no message folder yet, and the bus opened on it. */
function project() {
  const base = mkdtempSync(join(tmpdir(), 'baton-anchor-'));
  made.push(base);
  const dir = join(base, 'p');
  mkdirSync(dir);
  const file = join(dir, 'config.json');
  writeFileSync(
    file,
    JSON.stringify({
      agents: { a: { kind: 'generic', command: 'x' }, b: { kind: 'generic', command: 'x' } },
      directions: { a_to_b: ['a', 'b'], b_to_a: ['b', 'a'] },
    }),
  );
  const config = loadConfig({ file, baseDir: dir });
  return { base, dir, messages: config.messageDir, bus: openBus(config) };
}

const me = () => ({ pid: process.pid, host: hostname(), started_at: new Date().toISOString() });

async function daemonSide(bus: ReturnType<typeof openBus>): Promise<DeliveryBus> {
  const d = bus.delivery(quiet);
  const lease = await d.lease(me(), () => {});
  open.push({ d, lease });
  await d.recover();
  return d;
}

describe('the folders a daemon serves from (files bus)', () => {
  it('the first lease makes the message folder; a direction folder removed by hand is made again', async () => {
    const p = project();
    const d = await daemonSide(p.bus);
    expect(existsSync(join(p.messages, 'a_to_b'))).toBe(true);
    rmSync(join(p.messages, 'a_to_b'), { recursive: true });
    await d.rescan();
    expect(existsSync(join(p.messages, 'a_to_b'))).toBe(true);
  });

  it('a message folder removed, or a project moved away, stops it and is never made again', async () => {
    const removed = project();
    const d1 = await daemonSide(removed.bus);
    rmSync(removed.messages, { recursive: true });
    await expect(d1.rescan()).rejects.toBeInstanceOf(FolderGone);
    expect(existsSync(removed.messages)).toBe(false);

    const moved = project();
    const d2 = await daemonSide(moved.bus);
    renameSync(moved.dir, `${moved.dir}-moved`);
    await expect(d2.rescan()).rejects.toThrow(/is gone \(moved away or removed\)/);
    // Taking the lease again (what a daemon does after it lost it) finds it gone too, and makes nothing.
    await expect(moved.bus.delivery(quiet).lease(me(), () => {})).rejects.toBeInstanceOf(FolderGone);
    expect(existsSync(moved.dir)).toBe(false);
  });

  it('a message folder replaced by another one is not written into', async () => {
    const p = project();
    const d = await daemonSide(p.bus);
    rmSync(p.messages, { recursive: true });
    mkdirSync(p.messages);
    await expect(d.rescan()).rejects.toThrow(/is another folder now/);
    await expect(p.bus.delivery(quiet).lease(me(), () => {})).rejects.toBeInstanceOf(FolderGone);
  });

  it('a first lease in a project that is not there makes nothing', async () => {
    const p = project();
    rmSync(p.dir, { recursive: true });
    await expect(p.bus.delivery(quiet).lease(me(), () => {})).rejects.toBeInstanceOf(FolderGone);
    expect(existsSync(p.dir)).toBe(false);
  });
});

describe('makeDirBelow', () => {
  it('makes the folders below a root, never the root itself', async () => {
    const base = mkdtempSync(join(tmpdir(), 'baton-below-'));
    made.push(base);
    await makeDirBelow(base, join(base, 'x', 'y'));
    expect(existsSync(join(base, 'x', 'y'))).toBe(true);
    await makeDirBelow(base, join(base, 'x', 'y')); // there already: fine
    const gone = join(base, 'gone');
    await expect(makeDirBelow(gone, join(gone, 'x'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(existsSync(gone)).toBe(false);
  });
});
