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
import { createAtomic, moveNoClobber, writeAtomic } from '../../../src/lib/fsx.js';

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
