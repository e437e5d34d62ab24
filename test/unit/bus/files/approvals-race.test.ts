/**
 * Moderated mode's move into pending/ (files/approvals.ts) against a writer at work in the folder: the
 * daemon's calls on the name are wrapped (node:fs/promises) so the writer's rename lands exactly between
 * two of them, every run. It once moved the file with link(2) then unlink(2) by name: a message renamed over
 * the name between the two was the one unlinked — lost.
 */
import type * as fsp from 'node:fs/promises';
import {
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { Approvals } from '../../../../src/bus/files/approvals.js';
import { Entries } from '../../../../src/bus/folders/entries.js';
import { type Folder, listInbox } from '../../../../src/bus/folders/inbox.js';
import { StatCache } from '../../../../src/lib/stat-cache.js';
import { silent } from '../../../../src/lib/log.js';

/** Run `after` once the daemon's next call `op` on `path` is done. */
const around = vi.hoisted(() => ({ hooks: [] as Array<{ op: string; path: string; after: () => void }> }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof fsp>();
  const wrap =
    <A extends unknown[], R>(op: string, fn: (...a: A) => Promise<R>) =>
    async (...a: A): Promise<R> => {
      const r = await fn(...a);
      const i = around.hooks.findIndex((h) => h.op === op && h.path === String(a[0]));
      if (i >= 0) around.hooks.splice(i, 1)[0]!.after();
      return r;
    };
  const link = wrap('link', real.link);
  const lstat = wrap('lstat', real.lstat) as typeof real.lstat;
  const rename = wrap('rename', real.rename);
  return { ...real, default: { ...real, link, lstat, rename }, link, lstat, rename };
});

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'baton-approvals-'));
  around.hooks = [];
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const d = () => ({ name: 'c1_to_c2', from: 'claude1', to: 'claude2', dir: join(root, 'c1_to_c2') });
const pending = () => join(root, 'pending', 'c1_to_c2');

function setUp(): { approvals: Approvals; f: Folder } {
  mkdirSync(d().dir, { recursive: true });
  const approvals = new Approvals({
    root: join(root, 'pending'),
    rejectedDir: join(root, 'rejected'),
    asideDir: join(root, '.rejecting'),
    directions: [d()],
    events: { emit: async () => {} },
    log: silent,
  });
  const f: Folder = {
    direction: d(),
    entries: new Entries(),
    dirty: new Set(),
    taken: new Map(),
    undecodable: [],
    listing: new StatCache(listInbox),
  };
  return { approvals, f };
}

/** A writer's atomic write: a temp file renamed over the name. */
const renameOver = (name: string, body: string) => {
  writeFileSync(join(d().dir, `.${name}.tmp`), body);
  renameSync(join(d().dir, `.${name}.tmp`), join(d().dir, name));
};

it('a message renamed over the name while the one before it moves to pending/ stays in its folder', async () => {
  const { approvals, f } = setUp();
  writeFileSync(join(d().dir, 'a.json'), '{"content": "first"}');
  // Wherever the move looks at or takes the name, the writer's next message lands right after it.
  for (const op of ['link', 'rename'])
    around.hooks.push({
      op,
      path: join(d().dir, 'a.json'),
      after: () => renameOver('a.json', '{"content": "second"}'),
    });
  expect(await approvals.queue(f, 'a.json')).toBe('queued');
  expect(readdirSync(pending())).toEqual(['a.json']);
  expect(readFileSync(join(pending(), 'a.json'), 'utf8')).toBe('{"content": "first"}');
  expect(readFileSync(join(d().dir, 'a.json'), 'utf8')).toBe('{"content": "second"}');
});

it('a move a crash cut short (the same file in both) is finished, but a message put under the name since is kept', async () => {
  const { approvals, f } = setUp();
  mkdirSync(pending(), { recursive: true });
  writeFileSync(join(pending(), 'a.json'), '{"content": "first"}');
  // As a move killed between its link and its unlink left it.
  linkSync(join(pending(), 'a.json'), join(d().dir, 'a.json'));
  // The writer's next message lands right after the daemon saw the same file in both.
  around.hooks.push({
    op: 'lstat',
    path: join(pending(), 'a.json'),
    after: () => renameOver('a.json', '{"content": "second"}'),
  });
  expect(await approvals.queue(f, 'a.json')).toBe('held'); // its sender has one waiting
  expect(readdirSync(pending())).toEqual(['a.json']);
  expect(readFileSync(join(d().dir, 'a.json'), 'utf8')).toBe('{"content": "second"}');

  // Without a writer: the leftover link is removed, the one in pending/ stays.
  const again = setUp();
  renameSync(join(d().dir, 'a.json'), join(root, 'second.json'));
  linkSync(join(pending(), 'a.json'), join(d().dir, 'a.json'));
  expect(await again.approvals.queue(again.f, 'a.json')).toBe('gone');
  expect(readdirSync(d().dir)).toEqual([]);
  expect(readdirSync(pending())).toEqual(['a.json']);
});
