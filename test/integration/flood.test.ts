/**
 * A flood into one outgoing folder while a conversation runs: 2,000 invalid files dropped at once, then a
 * valid message written after them (its name sorts after theirs, so it waits behind them in name order,
 * docs/protocol.md §3). Every invalid file ends in rejected/ with its own note, its sender is told, and the
 * valid one is delivered exactly once. How fast is the bench's business (bench/intake.mjs: flood), not this test's.
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
