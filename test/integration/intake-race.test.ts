/**
 * A writer that replaces a bad file under the same name, as an adversary did to a running daemon: a garbage
 * file written, then a valid message renamed over the same name a few ms later, 200 times. The daemon judged
 * the garbage, and its move to rejected/ — behind the queue, moments later — took whatever had the name by
 * then: 8–14 of 200 valid messages ended in rejected/ under the garbage's note ("invalid JSON: Unexpected
 * token 'g'"). Every valid message must be delivered, and rejected/ may hold only garbage, each with its note.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, expect, it } from 'vitest';
import { Project, readRecorder, rejectedPairs, waitFor } from '../helpers/harness.js';

let p: Project;
afterEach(async () => {
  await p?.stop();
});

/** Garbage under `name`, then `ms` later a valid message renamed over it. */
async function replace(dir: string, name: string, content: string, ms: number): Promise<void> {
  writeFileSync(join(dir, name), `garbage ${name}`);
  await sleep(ms);
  const tmp = join(dir, `.${name}.tmp`);
  writeFileSync(tmp, JSON.stringify({ content }));
  renameSync(tmp, join(dir, name));
}

it('garbage replaced by a valid message a few ms later, 200 times: every valid one delivered, none rejected', async () => {
  // Both folders at once: their messages alternate turns, so all 200 are delivered without replies.
  p = new Project({ delivery: { enter_delay_ms: 0 } });
  await p.recorder('claude1');
  await p.recorder('claude2');
  const { proc: daemon } = await p.startDaemon();
  const sent: string[] = [];
  const attacks: Array<Promise<void>> = [];
  for (let i = 0; i < 100; i++) {
    for (const dir of ['c1_to_c2', 'c2_to_c1']) {
      const name = `m${String(i).padStart(3, '0')}.json`;
      const content = `${dir} ${name}`;
      sent.push(content);
      attacks.push(replace(p.path(dir), name, content, 1 + ((i * 7) % 9)));
    }
    await sleep(2);
  }
  await Promise.all(attacks);

  // Done when nothing moves any more: a valid message moved to rejected/ leaves the other folder's last ones
  // held for good (their sender's turn never comes back), so waiting for 200 deliveries would only time out.
  const snapshot = () =>
    JSON.stringify([p.archive().map((r) => r.delivered_at), p.ls('rejected'), p.ls('c1_to_c2'), p.ls('c2_to_c1')]);
  const seen: string[] = [];
  await waitFor(
    'nothing moves for 2 s',
    () => {
      seen.push(snapshot());
      return (
        seen.slice(-3).every((s) => s === seen.at(-1)) && seen.length >= 3 && p.archive().every((r) => r.delivered_at)
      );
    },
    60_000,
    1000,
  );
  const { stored, orphans } = rejectedPairs(p);
  const valid = stored.filter((s) => !readFileSync(p.path('rejected', s.name), 'utf8').startsWith('garbage '));
  expect(valid.map((s) => [s.name, s.note.reason])).toEqual([]);
  for (const s of stored) {
    expect(readFileSync(p.path('rejected', s.name), 'utf8')).toBe(`garbage ${s.note.file}`);
    expect(s.note.reason).toMatch(/^invalid JSON: /);
  }
  expect(orphans).toEqual([]);
  expect(
    p
      .archive()
      .map((r) => r.content)
      .sort(),
  ).toEqual(sent.sort());
  expect([...p.ls('c1_to_c2'), ...p.ls('c2_to_c1')]).toEqual([]);
  expect(daemon.exitCode).toBeNull();
}, 90_000);

it('killed with files taken aside on their way to rejected/: at the next start each is back in its folder and judged anew', async () => {
  p = new Project();
  await p.recorder('claude1');
  const log2 = await p.recorder('claude2');
  const { proc } = await p.startDaemon({ BATON_FAILPOINT: 'set_aside' });
  writeFileSync(p.path('c1_to_c2', 'bad.json'), 'garbage');
  await waitFor('killed with the file taken aside', () => proc.exitCode !== null || proc.signalCode, 15_000);
  expect(proc.signalCode).toBe('SIGKILL');
  expect(p.ls('.rejecting', 'c1_to_c2')).toEqual(['bad.json']);
  // A valid message caught in the same place (put under a judged name just before the move), and a newer
  // file under its name since: it goes back under a free name, and neither is lost.
  writeFileSync(p.path('.rejecting', 'c1_to_c2', 'ok.json'), JSON.stringify({ content: 'caught aside' }));
  p.send('c1_to_c2', 'ok.json', { content: 'the newer one' });

  await p.startDaemon();
  await waitFor('delivered', () => p.archive()[0]?.delivered_at);
  await waitFor('rejected', () => rejectedPairs(p).stored.length === 1);
  expect(p.ls('.rejecting', 'c1_to_c2')).toEqual([]);
  const { stored, orphans } = rejectedPairs(p);
  expect(orphans).toEqual([]);
  expect(stored.map((s) => [s.name, s.note.file])).toEqual([['bad.json', 'bad.json']]);
  expect(stored[0]!.note.reason).toMatch(/^invalid JSON: Unexpected token 'g'/);
  expect(p.archive().map((r) => [r.source_file, r.content])).toEqual([['ok.1.json', 'caught aside']]);
  expect(p.ls('c1_to_c2')).toEqual(['ok.json']); // held: claude2's turn now
  await waitFor('typed', () => readRecorder(log2).pastes.some((t) => t.includes('caught aside')));
});
