/**
 * One machine daemon per machine name (app/machine/identity.ts): the machine's own name (BATON_HOST unset,
 * or its hostname) keeps `$XDG_STATE_HOME/baton/`; another BATON_HOST has its own state folder under it —
 * its own registry, lock and daemon — and every one of them is found for `baton ls`.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stateDir, stateDirs, stateRoot } from '../../../src/app/machine/identity.js';

let root = '';
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("a machine name's state folder", () => {
  it("is the root for the machine's own name, and one of its own for another BATON_HOST", () => {
    const env = { XDG_STATE_HOME: '/x/state' };
    expect(stateRoot(env)).toBe('/x/state/baton');
    expect(stateDir(env)).toBe('/x/state/baton');
    expect(stateDir({ ...env, BATON_HOST: '' })).toBe('/x/state/baton');
    expect(stateDir({ ...env, BATON_HOST: hostname() })).toBe('/x/state/baton');
    expect(stateDir({ ...env, BATON_HOST: 'alpha' })).toBe('/x/state/baton/hosts/alpha');
    expect(stateDir({ ...env, BATON_HOST: 'beta' })).not.toBe(stateDir({ ...env, BATON_HOST: 'alpha' }));
    // A name that is no plain folder name is hashed, never a path.
    for (const odd of ['../x', 'a/b', '.hidden', 'x'.repeat(80)]) {
      const dir = stateDir({ ...env, BATON_HOST: odd });
      expect(dir).toMatch(/^\/x\/state\/baton\/hosts\/~[0-9a-f]{16}$/);
    }
  });

  it('every one on the box is listed, the machine’s own first', () => {
    root = mkdtempSync(join(tmpdir(), 'baton-id-'));
    expect(stateDirs(root)).toEqual([{ host: null, dir: root }]);
    for (const h of ['beta', 'alpha']) mkdirSync(join(root, 'hosts', h), { recursive: true });
    expect(stateDirs(root)).toEqual([
      { host: null, dir: root },
      { host: 'alpha', dir: join(root, 'hosts', 'alpha') },
      { host: 'beta', dir: join(root, 'hosts', 'beta') },
    ]);
  });
});
