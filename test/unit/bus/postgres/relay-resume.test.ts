/**
 * A relay's start-up (postgres/relay.ts resume) finishes what a daemon killed mid-rejection left, as the
 * files bus does (folders/intake.ts recover): a file taken aside goes back to its folder, and a file moved
 * to rejected/ before its note was written gets one — the relay used to put files back only, leaving such a
 * file with no reason beside it.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Relay } from '../../../../src/bus/postgres/relay.js';
import { silent } from '../../../../src/lib/log.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'baton-relay-resume-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

it('puts back what was taken aside and writes the note a rejected file lacks', async () => {
  const d = { name: 'a_to_b', from: 'a', to: 'b', dir: join(root, 'a_to_b') };
  mkdirSync(join(root, '.rejecting', d.name), { recursive: true });
  mkdirSync(join(root, 'rejected'));
  writeFileSync(join(root, '.rejecting', d.name, 'aside.json'), '{"content":"back"}');
  writeFileSync(join(root, 'rejected', 'bad.json'), 'garbage');
  const relay = new Relay([d], {
    conversation: 'c',
    host: 'h',
    maxBytes: 1 << 20,
    settleMs: 200,
    rejectedDir: join(root, 'rejected'),
    asideDir: join(root, '.rejecting'),
    events: { emit: async () => {} },
    log: silent,
    store: async () => null,
    wal: async () => ({ inserted: 0n, flushed: 0n, epoch: 'e', asked: 0 }),
  });
  await relay.ensureFolders();
  await relay.resume();
  expect(readFileSync(join(d.dir, 'aside.json'), 'utf8')).toBe('{"content":"back"}');
  expect(existsSync(join(root, 'rejected', 'bad.json.error.json'))).toBe(true);
  expect(JSON.parse(readFileSync(join(root, 'rejected', 'bad.json.error.json'), 'utf8'))).toMatchObject({
    file: 'bad.json',
    reason: 'unknown: the daemon stopped before it wrote the reason',
  });
});
