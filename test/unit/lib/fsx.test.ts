import {
  existsSync,
  linkSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
  mkdirSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createAtomic, moveNoClobber, numbered, writeAtomic } from '../../../src/lib/fsx.js';

const made: string[] = [];
const fresh = () => {
  const d = mkdtempSync(join(tmpdir(), 'baton-fsx-'));
  made.push(d);
  return d;
};
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

describe('moveNoClobber', () => {
  it('moves under the same name when it is free', async () => {
    const d = fresh();
    mkdirSync(join(d, 'to'));
    writeFileSync(join(d, 'm.json'), 'A');
    expect(await moveNoClobber(join(d, 'm.json'), join(d, 'to'), 'm.json')).toBe('m.json');
    expect(readFileSync(join(d, 'to', 'm.json'), 'utf8')).toBe('A');
    expect(existsSync(join(d, 'm.json'))).toBe(false);
  });
  it('never replaces another file: a taken name gets a numeric suffix', async () => {
    const d = fresh();
    mkdirSync(join(d, 'to'));
    writeFileSync(join(d, 'to', 'm.json'), 'OLD');
    writeFileSync(join(d, 'to', 'm.1.json'), 'OLDER');
    writeFileSync(join(d, 'm.json'), 'NEW');
    expect(await moveNoClobber(join(d, 'm.json'), join(d, 'to'), 'm.json')).toBe('m.2.json');
    expect(readdirSync(join(d, 'to')).sort()).toEqual(['m.1.json', 'm.2.json', 'm.json']);
    expect(readFileSync(join(d, 'to', 'm.json'), 'utf8')).toBe('OLD');
  });
  it('repeated after a crash between its link and unlink, it finishes the same move (no duplicate)', async () => {
    const d = fresh();
    mkdirSync(join(d, 'to'));
    writeFileSync(join(d, 'm.json'), 'A');
    linkSync(join(d, 'm.json'), join(d, 'to', 'm.json')); // the first half of an interrupted move
    expect(await moveNoClobber(join(d, 'm.json'), join(d, 'to'), 'm.json')).toBe('m.json');
    expect(readdirSync(join(d, 'to'))).toEqual(['m.json']);
    expect(existsSync(join(d, 'm.json'))).toBe(false);
  });
  it('a 255-byte name that is taken gets a numbered name within 255 bytes (it failed with ENAMETOOLONG)', async () => {
    const d = fresh();
    mkdirSync(join(d, 'to'));
    const name = `${'a'.repeat(250)}.json`;
    writeFileSync(join(d, 'to', name), 'OLD');
    writeFileSync(join(d, name), 'NEW');
    const back = await moveNoClobber(join(d, name), join(d, 'to'), name);
    expect(back).toBe(numbered(name, 1));
    expect(readFileSync(join(d, 'to', back), 'utf8')).toBe('NEW');
    expect(readFileSync(join(d, 'to', name), 'utf8')).toBe('OLD');
  });
  it('moves a directory too (it cannot be hard-linked)', async () => {
    const d = fresh();
    mkdirSync(join(d, 'to'));
    mkdirSync(join(d, 'x.json'));
    expect(await moveNoClobber(join(d, 'x.json'), join(d, 'to'), 'x.json')).toBe('x.json');
    expect(existsSync(join(d, 'to', 'x.json'))).toBe(true);
  });
});

describe('writeAtomic / createAtomic', () => {
  it('createAtomic refuses an existing name; writeAtomic replaces; no temp file is left', async () => {
    const d = fresh();
    expect(await createAtomic(join(d, 'a.json'), '1')).toBe(true);
    expect(await createAtomic(join(d, 'a.json'), '2')).toBe(false);
    expect(readFileSync(join(d, 'a.json'), 'utf8')).toBe('1');
    await writeAtomic(join(d, 'a.json'), '3');
    expect(readFileSync(join(d, 'a.json'), 'utf8')).toBe('3');
    expect(readdirSync(d)).toEqual(['a.json']);
  });
});

describe('numbered', () => {
  it('numbers a name before its extension, as ever while it fits', () => {
    expect([0, 1, 12].map((i) => numbered('m.json', i))).toEqual(['m.json', 'm.1.json', 'm.12.json']);
    expect(numbered('noext', 2)).toBe('noext.2');
  });
  it('cuts a long name to fit 255 bytes, never inside a character, with a hash of the whole name', () => {
    for (const name of [`${'a'.repeat(250)}.json`, `ü${'漢'.repeat(82)}.json`, `${'é'.repeat(125)}.x`]) {
      const seen = new Set<string>();
      for (const i of [1, 2, 10, 1000]) {
        const n = numbered(name, i);
        expect(Buffer.byteLength(n), n).toBeLessThanOrEqual(255);
        expect(Buffer.from(n).toString()).toBe(n); // whole characters only
        expect(n.endsWith(`.${i}${name.slice(name.lastIndexOf('.'))}`)).toBe(true);
        seen.add(n);
      }
      expect(seen.size).toBe(4);
    }
    const [x, y] = [`${'a'.repeat(249)}b.json`, `${'a'.repeat(249)}c.json`];
    expect(numbered(x, 1)).not.toBe(numbered(y, 1));
  });
});
