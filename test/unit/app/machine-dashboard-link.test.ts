/**
 * A registry conversation's link to the machine's dashboard, from the machine's ui.json: a url that cannot
 * carry the conversation's path (a hand-edited file) gives no link, never an exception in the machine daemon.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { linkFor } from '../../../src/app/machine/dashboard.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function machineDir(url: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'baton-link-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'ui.json'), JSON.stringify({ pid: process.pid, url }));
  return dir;
}

const config = { file: null, host: 'here' };

describe("a conversation's link to the machine's dashboard", () => {
  it('is the conversation under /c/<id>/ of the live dashboard', () => {
    expect(linkFor(machineDir('http://127.0.0.1:7000/'), 'key', config)).toMatch(
      /^http:\/\/127\.0\.0\.1:7000\/c\/.+\/$/,
    );
  });

  it('is null for a url that cannot carry a path, as for none', () => {
    for (const url of ['mailto:x', 'data:,x', 'not a url']) expect(linkFor(machineDir(url), 'key', config)).toBeNull();
  });
});
