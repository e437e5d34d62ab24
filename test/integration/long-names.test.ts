/**
 * Names of up to 255 bytes on the files bus, where baton renames a file under a name longer than its own:
 * a file put back under a numbered name (`m.1.json`) when a newer one took its name, and a request taken as
 * `<name>.taken`. Each failed with ENAMETOOLONG for a name near 255 bytes — the put-back at every start (the
 * daemon never started), the request at every pass (and the pass with it) — and must work, or reject the
 * file with the reason.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { afterEach, expect, it } from 'vitest';
import { Project, readRecorder, rejectedPairs, waitFor } from '../helpers/harness.js';

let p: Project;
afterEach(async () => {
  await p?.stop();
});

const long = `${'a'.repeat(250)}.json`; // 255 bytes

it('killed with a 255-byte name taken aside, a newer file under that name since: the next start puts it back under a numbered name', async () => {
  p = new Project();
  await p.recorder('claude1');
  const log2 = await p.recorder('claude2');
  const { proc } = await p.startDaemon({ BATON_FAILPOINT: 'set_aside' });
  writeFileSync(p.path('c1_to_c2', long), 'garbage');
  await waitFor('killed with the file taken aside', () => proc.exitCode !== null || proc.signalCode, 15_000);
  expect(proc.signalCode).toBe('SIGKILL');
  expect(p.ls('.rejecting', 'c1_to_c2')).toEqual([long]);
  // A valid message caught aside under the judged name, and a newer file under its name since.
  writeFileSync(p.path('.rejecting', 'c1_to_c2', long), JSON.stringify({ content: 'caught aside' }));
  p.send('c1_to_c2', long, { content: 'the newer one' });

  const { proc: again } = await p.startDaemon();
  await waitFor('delivered', () => again.exitCode !== null || p.archive()[0]?.delivered_at);
  expect(again.exitCode, String(again.exitCode === null ? '' : (await again).all)).toBeNull();
  const [record] = p.archive();
  expect(record?.content).toBe('caught aside');
  const back = String(record?.source_file);
  expect(back).toMatch(/^a+-[0-9a-f]{8}\.1\.json$/);
  expect(Buffer.byteLength(back)).toBeLessThanOrEqual(255);
  expect(p.ls('.rejecting', 'c1_to_c2')).toEqual([]);
  expect(p.ls('c1_to_c2')).toEqual([long]); // held: claude2's turn now
  await waitFor('typed', () => readRecorder(log2).pastes.some((t) => t.includes('caught aside')));
});

it('a request file under a 250-byte name goes to rejected/ with the reason; the requests after it are answered, messages delivered', async () => {
  p = new Project();
  await p.recorder('claude1');
  await p.recorder('claude2');
  await p.startDaemon();
  // Sorted before any request baton makes (theirs start with the time in digits): taken first.
  const name = `${'0'.repeat(241)}.req.json`;
  mkdirSync(p.path('requests'), { recursive: true });
  writeFileSync(p.path('requests', name), JSON.stringify({ op: 'pause' }));
  const r = await p.cli(['send', '--to', 'claude2', 'a person speaks']);
  expect(r.exitCode, r.stderr).toBe(0);
  p.send('c1_to_c2', 'm.json', { content: 'after it' });
  await waitFor('delivered', () => p.archive()[0]?.delivered_at);
  await waitFor('rejected', () => rejectedPairs(p).stored.length === 1);
  const { stored, orphans } = rejectedPairs(p);
  expect(orphans).toEqual([]);
  // Stored under a name shortened with a hash, to leave room for its note's (§6); the note names it.
  expect(stored.map((s) => s.note.file)).toEqual([name]);
  expect(stored[0]!.name).toMatch(/^0+-[0-9a-f]{8}\.json$/);
  expect(stored[0]!.note.reason).toBe(
    "not a request baton can take: its name is 250 bytes, no room for .taken and its reply's name",
  );
  expect(p.ls('requests').filter((n) => n.includes('.req.json'))).toEqual([]);
  expect(JSON.parse(readFileSync(p.path('state.json'), 'utf8')).paused ?? null).toBeNull(); // never acted on
});
