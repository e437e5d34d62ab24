/**
 * A flood into one outgoing folder while a conversation runs: 2,000 invalid files dropped at once, then a
 * valid message written after them (its name sorts after theirs, docs/protocol.md §3). Every invalid file
 * ends in rejected/ with its own note and event, its sender is told, and the valid one is delivered exactly
 * once. A file that can never be valid does not hold the valid one: it is taken as soon as it is seen, while
 * the rejections go on behind it; one that could still become valid (the start of a JSON object: a writer
 * may be at work) keeps its place until it has settled. How fast is the bench's business (bench/intake.mjs:
 * flood), not this test's.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { Project, readRecorder, rejectedPairs, waitFor } from '../helpers/harness.js';

let p: Project;
afterEach(async () => {
  await p?.stop();
});

it('2,000 invalid files dropped at once, then a valid one: all rejected with a note each, the valid one delivered once', async () => {
  p = new Project();
  const log1 = await p.recorder('claude1');
  const log2 = await p.recorder('claude2');
  const { proc: daemon } = await p.startDaemon();
  const dir = p.path('c1_to_c2');
  const bodies = ['{"content": "cut off', '{"text": "no content"}', '', '[1]', '{"content": 7}'];
  const bad: string[] = [];
  for (let i = 0; i < 2000; i++) {
    const name = `m${String(i).padStart(5, '0')}.json`;
    writeFileSync(join(dir, `.${name}.tmp`), bodies[i % bodies.length]!);
    renameSync(join(dir, `.${name}.tmp`), join(dir, name));
    bad.push(name);
  }
  p.send('c1_to_c2', 'z-valid.json', { content: 'written after the flood' });

  await waitFor('the valid one delivered', () => p.archive()[0]?.delivered_at, 120_000, 100);
  await waitFor('2000 rejected', () => rejectedPairs(p).stored.length >= 2000, 120_000, 250);

  const archive = p.archive();
  expect(archive.map((r) => [r.id, r.source_file, r.content])).toEqual([
    ['msg_0001', 'z-valid.json', 'written after the flood'],
  ]);
  const { stored, orphans } = rejectedPairs(p);
  expect(orphans).toEqual([]);
  expect(stored.map((s) => s.note.file).sort()).toEqual(bad);
  for (const { name, note } of stored) {
    expect(note.stored_as).toBe(name);
    expect(note.direction).toBe('c1_to_c2');
    expect(note.reason).toMatch(
      /^(invalid JSON|content: |empty file$|the message must be a JSON object, not an array)/,
    );
  }
  expect(p.ls('c1_to_c2')).toEqual([]);
  const rejectedEvents = p.events().filter((e) => e.event === 'rejected');
  expect(rejectedEvents).toHaveLength(2000);
  expect(new Set(rejectedEvents.map((e) => e.file)).size).toBe(2000);

  // claude2 read the valid one once; claude1 was told its files were not delivered.
  await waitFor('claude2 read it', () => readRecorder(log2).pastes.length >= 1);
  const read = readRecorder(log2).pastes.filter((t) => t.startsWith('[baton] msg_'));
  expect(read).toHaveLength(1);
  expect(read[0]).toContain('written after the flood');
  await waitFor(
    'claude1 told',
    () => readRecorder(log1).pastes.some((t) => /^\[baton\] \d+ of your messages were not delivered/.test(t)),
    30_000,
  );
  expect(readRecorder(log1).pastes.filter((t) => t.startsWith('[baton] msg_'))).toEqual([]);
  expect(daemon.exitCode).toBeNull();
}, 240_000);

it('2,000 files that can never be valid, then a valid one: taken before the rejections behind it are done', async () => {
  p = new Project();
  await p.recorder('claude1');
  const log2 = await p.recorder('claude2');
  const { proc: daemon } = await p.startDaemon();
  const dir = p.path('c1_to_c2');
  // What an outside checker drops, none of it the start of a message a writer could still be finishing.
  const bodies: Array<string | Buffer> = [
    'garbage, not JSON at all',
    '{"content": "x",}', // a syntax error before the end
    '{"text": "no content"}', // a schema error
    '{"content": "x"} and more', // junk after a whole value
    '[1, 2', // the start of an array: never an object
    Buffer.from([0x7b, 0x22, 0xff, 0xfe]), // not UTF-8
    'null',
    '{"content": ""}',
    '{"sender": "claude9", "content": "x"}',
  ];
  const bad: string[] = [];
  for (let i = 0; i < 2000; i++) {
    const name = `m${String(i).padStart(5, '0')}.json`;
    writeFileSync(join(dir, `.${name}.tmp`), bodies[i % bodies.length]!);
    renameSync(join(dir, `.${name}.tmp`), join(dir, name));
    bad.push(name);
  }
  p.send('c1_to_c2', 'z-valid.json', { content: 'written after the flood' });

  await waitFor('the valid one delivered', () => p.archive()[0]?.delivered_at, 120_000, 100);
  await waitFor('2000 rejected', () => rejectedPairs(p).stored.length >= 2000, 120_000, 250);
  await waitFor('2000 rejected events', () => p.events().filter((e) => e.event === 'rejected').length >= 2000);

  expect(p.archive().map((r) => [r.id, r.source_file, r.content])).toEqual([
    ['msg_0001', 'z-valid.json', 'written after the flood'],
  ]);
  const { stored, orphans } = rejectedPairs(p);
  expect(orphans).toEqual([]);
  expect(stored.map((s) => s.note.file).sort()).toEqual(bad);
  for (const { name, note } of stored) {
    expect(note.stored_as).toBe(name);
    expect(note.reason).toMatch(
      /^(invalid JSON: |not valid UTF-8$|content: |sender: |the message must be a JSON object, not )/,
    );
  }
  expect(p.ls('c1_to_c2')).toEqual([]);
  const events = p.events();
  const rejected = events.filter((e) => e.event === 'rejected');
  expect(rejected).toHaveLength(2000);
  expect(new Set(rejected.map((e) => e.file)).size).toBe(2000);
  // The valid one did not wait for the rejections ahead of it in name order: delivered while they went on.
  const delivered = events.findIndex((e) => e.event === 'delivered' && e.id === 'msg_0001');
  const lastRejected = events.map((e) => e.event).lastIndexOf('rejected');
  const after = events.slice(delivered).filter((e) => e.event === 'rejected').length;
  console.log(`flood of garbage: ${after} of 2000 rejections logged after the valid one's delivery`);
  expect(delivered).toBeGreaterThan(-1);
  expect(delivered).toBeLessThan(lastRejected);

  await waitFor('claude2 read it', () => readRecorder(log2).pastes.length >= 1);
  expect(readRecorder(log2).pastes.filter((t) => t.startsWith('[baton] msg_'))).toHaveLength(1);
  expect(daemon.exitCode).toBeNull();
}, 240_000);
