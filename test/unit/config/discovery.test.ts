/** The config is found as git finds its repository (load.ts): here or in the nearest folder above. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config/config.js';
import { loadConfig, locateConfig } from '../../../src/config/load.js';

let root: string;
afterEach(() => rmSync(root, { recursive: true, force: true }));

const project = () => {
  root = mkdtempSync(join(tmpdir(), 'baton-find-'));
  const proj = join(root, 'proj');
  const deep = join(proj, 'agents', 'claude1', 'src');
  mkdirSync(deep, { recursive: true });
  writeFileSync(join(proj, 'config.json'), '{}');
  return { proj, deep };
};

describe('locateConfig walks up', () => {
  it('finds config.json in the nearest folder above, its folder the base of relative paths', () => {
    const { proj, deep } = project();
    expect(locateConfig(undefined, deep, {})).toEqual({ file: join(proj, 'config.json'), baseDir: proj });
    expect(locateConfig(undefined, proj, {})).toEqual({ file: join(proj, 'config.json'), baseDir: proj });
  });

  it('the nearest wins: a config.json in a subfolder is that folder’s conversation', () => {
    const { proj, deep } = project();
    const inner = join(proj, 'agents');
    writeFileSync(join(inner, 'config.json'), '{}');
    expect(locateConfig(undefined, deep, {}).file).toBe(join(inner, 'config.json'));
  });

  it('a folder named config.json is not a config', () => {
    const { proj, deep } = project();
    mkdirSync(join(proj, 'agents', 'config.json'));
    expect(locateConfig(undefined, deep, {}).file).toBe(join(proj, 'config.json'));
  });

  it('--config and BATON_CONFIG come first; BATON_HOME is looked in, not above', () => {
    const { proj, deep } = project();
    expect(locateConfig('x.json', deep, {}).file).toBe(join(deep, 'x.json'));
    expect(locateConfig(undefined, deep, { BATON_CONFIG: '/p/c.json' }).file).toBe('/p/c.json');
    expect(locateConfig(undefined, '/', { BATON_HOME: deep })).toEqual({ file: null, baseDir: deep });
    expect(locateConfig(undefined, '/', { BATON_HOME: proj }).file).toBe(join(proj, 'config.json'));
  });

  it('none up to /: no file, the current folder as the base', () => {
    root = mkdtempSync(join(tmpdir(), 'baton-find-'));
    expect(locateConfig(undefined, root, {})).toEqual({ file: null, baseDir: root });
  });
});

describe('loadConfig with no file found', () => {
  it('refuses in one line naming what to do, unless the command falls back to the built-in default', () => {
    root = mkdtempSync(join(tmpdir(), 'baton-find-'));
    const source = locateConfig(undefined, root, {});
    expect(() => loadConfig(source)).toThrow(ConfigError);
    expect(() => loadConfig(source)).toThrow(
      `baton: no config.json in ${root} or any folder above it: "baton init" makes one, or give --config FILE (or BATON_CONFIG)`,
    );
    expect(loadConfig(source, { fallback: 'default' })).toMatchObject({ file: null, order: ['claude1', 'claude2'] });
  });
});
