/**
 * A machine registry that does not read (app/machine/registry.ts) is never written over: `register` and
 * `unregister` refuse with RegistryUnreadable and leave the file byte for byte as the person left it. Taking
 * it as an empty list once let one `baton up` rewrite it with its own conversation alone, and the daemon let
 * go of every other.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  entryOf,
  keyOf,
  RegistryUnreadable,
  register,
  registryFile,
  unregister,
} from '../../../src/app/machine/registry.js';
import type { Config } from '../../../src/config/config.js';

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const config = (n: number) =>
  ({
    file: `/p/${n}/config.json`,
    baseDir: `/p/${n}`,
    messageDir: `/p/${n}/messages`,
    bus: { kind: 'files' },
  }) as Config;

describe('a machine registry that does not read', () => {
  it('is never written over: adding or removing a conversation refuses, naming the file', async () => {
    dir = mkdtempSync(join(tmpdir(), 'baton-reg-'));
    await register(dir, entryOf(config(1), null));
    await register(dir, entryOf(config(2), null));
    // Edited by hand and left with a trailing comma.
    const broken = readFileSync(registryFile(dir), 'utf8').replace(/\}\n {2}\]/, '},\n  ]');
    writeFileSync(registryFile(dir), broken);

    const added = register(dir, entryOf(config(3), null));
    await expect(added).rejects.toBeInstanceOf(RegistryUnreadable);
    await expect(added).rejects.toThrow(new RegExp(`${registryFile(dir)} does not parse.*fix it by hand`));
    await expect(unregister(dir, keyOf(entryOf(config(1), null)))).rejects.toBeInstanceOf(RegistryUnreadable);
    expect(readFileSync(registryFile(dir), 'utf8')).toBe(broken);
  });
});
