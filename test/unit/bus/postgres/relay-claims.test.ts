/**
 * The relay's claim names (postgres/relay-claims.ts): `<ms>-<pid>-<n>-<name>` while that fits in 255
 * bytes, `<ms>-<pid>-<n>/<name>` (a folder of its own) when it does not — a name over ~225 bytes was
 * never claimed, and its message waited for ever. Both layouts are read back, oldest claim first.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  claimInto,
  claimOf,
  claimOrder,
  dropFolder,
  listClaimed,
  nameOf,
} from '../../../../src/bus/postgres/relay-claims.js';

const made: string[] = [];
const fresh = () => {
  const d = mkdtempSync(join(tmpdir(), 'baton-relay-claims-'));
  made.push(d);
  return d;
};
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

const id = '1700000000000-4194304-123456'; // 28 bytes, as long as a claim ID gets in practice

describe('relay claim names', () => {
  it('flat while the claim fits in 255 bytes, in a folder of its own past that (multi-byte counted in bytes)', () => {
    const fits = `${'a'.repeat(255 - id.length - 1 - 5)}.json`;
    expect(claimOf(id, fits)).toEqual({ as: `${id}-${fits}`, folder: null });
    const over = `b${fits}`;
    expect(claimOf(id, over)).toEqual({ as: `${id}/${over}`, folder: id });
    const multi = `${'漢'.repeat(76)}.json`; // 81 characters, 233 bytes
    expect(claimOf(id, multi).folder).toBe(id);
    expect(claimOf(id, 'm.json')).toEqual({ as: `${id}-m.json`, folder: null });
  });

  it('give back the name in both layouts, a stray its own; claims sort by time, then count', () => {
    expect(nameOf(`${id}-m-1.json`)).toBe('m-1.json');
    expect(nameOf(`${id}/m-1.json`)).toBe('m-1.json');
    expect(nameOf('stray.json')).toBe('stray.json');
    const order = ['2-9-10-c.json', '1-9-3/b.json', '2-9-2-a.json', '1-9-1-d.json'].sort(claimOrder);
    expect(order).toEqual(['1-9-1-d.json', '1-9-3/b.json', '2-9-2-a.json', '2-9-10-c.json']);
  });

  it('a 255-byte name is claimed into its folder, listed, and its folder removed with it', () => {
    const d = fresh();
    const relaying = join(d, '.relaying');
    mkdirSync(relaying);
    const name = `${'x'.repeat(250)}.json`;
    writeFileSync(join(d, name), '{}');
    writeFileSync(join(d, 'm.json'), '{}');
    const long = claimOf('5-1-2', name).as;
    const short = claimOf('5-1-1', 'm.json').as;
    expect(claimInto(relaying, join(d, name), long)).toEqual({ kind: 'claimed' });
    expect(claimInto(relaying, join(d, 'm.json'), short)).toEqual({ kind: 'claimed' });
    expect(claimInto(relaying, join(d, 'gone.json'), claimOf('5-1-3', 'gone.json').as)).toEqual({ kind: 'gone' });
    expect(listClaimed(relaying)).toEqual([short, long]);
    rmSync(join(relaying, long));
    dropFolder(relaying, long);
    expect(readdirSync(relaying)).toEqual([short]);
  });

  it('a .relaying/ removed by hand is made again; a claim that cannot be made fails, the file stays', () => {
    const d = fresh();
    const relaying = join(d, '.relaying');
    const name = `${'y'.repeat(250)}.json`;
    writeFileSync(join(d, name), '{}');
    expect(claimInto(relaying, join(d, name), claimOf('6-1-1', name).as)).toEqual({ kind: 'claimed' });
    writeFileSync(join(d, 'm.json'), '{}');
    mkdirSync(join(relaying, '6-1-2-m.json')); // a directory in the way: rename(2) refuses a file over it
    writeFileSync(join(relaying, '6-1-2-m.json', 'x'), '');
    const c = claimInto(relaying, join(d, 'm.json'), '6-1-2-m.json');
    expect(c.kind).toBe('failed');
    expect(existsSync(join(d, 'm.json'))).toBe(true);
  });

  it('listing at start-up removes an empty claim folder (killed around its mkdir or rmdir), keeps the rest', () => {
    const d = fresh();
    mkdirSync(join(d, '1-2-3'));
    mkdirSync(join(d, '1-2-4'));
    writeFileSync(join(d, '1-2-4', 'long.json'), '{}');
    writeFileSync(join(d, '1-2-5-flat.json'), '{}');
    expect(listClaimed(d)).toEqual(['1-2-4/long.json', '1-2-5-flat.json']);
    expect(readdirSync(d).sort()).toEqual(['1-2-3', '1-2-4', '1-2-5-flat.json']);
    expect(listClaimed(d, true)).toEqual(['1-2-4/long.json', '1-2-5-flat.json']);
    expect(readdirSync(d).sort()).toEqual(['1-2-4', '1-2-5-flat.json']);
    expect(listClaimed(join(d, 'none'))).toEqual([]);
  });
});
