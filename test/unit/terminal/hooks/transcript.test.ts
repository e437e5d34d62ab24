/**
 * terminal/hooks/transcript.ts: a transcript read on from where the last look ended — and, since its path
 * comes from a note the agent can write, read only as a regular file this user owns under its client's
 * own folders, never through a link, a FIFO or a device, and never more than a cap at a time.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { clientFolders } from '../../../../src/terminal/hooks/client-folders.js';
import { LIMITS, TranscriptTail, transcriptReply } from '../../../../src/terminal/hooks/transcript.js';
import { fuzz } from '../../../helpers/fuzz.js';

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));
const setUp = () => {
  dir = mkdtempSync(join(tmpdir(), 'baton-transcript-'));
  const folder = join(dir, 'projects');
  mkdirSync(folder);
  return folder;
};

describe('TranscriptTail', () => {
  it('reads only what was appended, keeps a line (and a character) cut short until it is whole, starts over on a new file', async () => {
    const folder = setUp();
    const file = join(folder, 't.jsonl');
    const tail = new TranscriptTail(file, [folder]);
    expect(await tail.read()).toEqual([]); // no file yet
    writeFileSync(file, '{"n":1}\n{"n":2');
    expect(await tail.read()).toEqual([{ n: 1 }]);
    const euro = Buffer.from('}\n{"s":"€"}\nnot json\n');
    const cut = euro.indexOf(0xe2) + 1; // in the middle of "€"
    appendFileSync(file, euro.subarray(0, cut));
    expect(await tail.read()).toEqual([{ n: 1 }, { n: 2 }]);
    appendFileSync(file, euro.subarray(cut));
    expect(await tail.read()).toEqual([{ n: 1 }, { n: 2 }, { s: '€' }]);
    writeFileSync(file, '{"n":9}\n'); // replaced by a shorter one
    expect(await tail.read()).toEqual([{ n: 9 }]);
    expect(tail.refused).toBeNull();
  });

  it('a FIFO is refused at once (a plain open waits for a writer for ever), under its folder or not', async () => {
    const folder = setUp();
    const fifo = join(folder, 'fifo.jsonl');
    execFileSync('mkfifo', [fifo]);
    const tail = new TranscriptTail(fifo, [folder]);
    expect(await tail.read()).toEqual([]);
    expect(tail.refused).toBe('not a regular file (a FIFO)');
    const t0 = performance.now();
    expect(await transcriptReply(fifo, [folder])).toEqual({ reply: null, refused: 'not a regular file (a FIFO)' });
    expect(performance.now() - t0).toBeLessThan(1000);
  });

  it('a file outside its client folders is never opened, through a link or not; a link inside to a device neither', async () => {
    const folder = setUp();
    const outside = join(dir, 'elsewhere.jsonl');
    writeFileSync(outside, '{"secret":1}\n');
    const viaLink = join(folder, 'link.jsonl');
    symlinkSync(outside, viaLink);
    const zero = join(folder, 'zero.jsonl');
    symlinkSync('/dev/zero', zero);
    for (const path of [outside, viaLink, zero]) {
      const tail = new TranscriptTail(path, [folder]);
      expect(await tail.read(), path).toEqual([]);
      expect(tail.refused, path).toBe(`not under its client's folders (${folder})`);
    }
    const none = new TranscriptTail(outside, []);
    await none.read();
    expect(none.refused).toBe('its client keeps no transcripts baton reads');
    // A folder whose name only starts like the client's is not the client's.
    const twin = `${folder}-twin`;
    mkdirSync(twin);
    writeFileSync(join(twin, 't.jsonl'), '{"n":1}\n');
    const t = new TranscriptTail(join(twin, 't.jsonl'), [folder]);
    expect(await t.read()).toEqual([]);
    expect(t.refused).toMatch(/^not under/);
  });

  it('a big transcript is read from a window before its end, a chunk a look; a line too long is skipped', async () => {
    // baton's caps (8 MiB a look, a 32 MiB window, 16 MiB a line) under BATON_FUZZ=long; by default the same
    // caps and file over 1024, so the same reads happen on KiB instead of MiB.
    const limits = fuzz({ chunk: LIMITS.chunk >> 10, window: LIMITS.window >> 10, line: LIMITS.line >> 10 }, LIMITS);
    const unit = limits.window / 32; // 1 MiB with baton's caps
    const folder = setUp();
    const file = join(folder, 'big.jsonl');
    const line = `${JSON.stringify({ pad: 'x'.repeat(unit) })}\n`; // ~1 MiB a line
    writeFileSync(file, `{"first":true}\n${line.repeat(40)}{"last":true}\n`); // over the window
    const tail = new TranscriptTail(file, [folder], limits);
    let looks = 0;
    let entries: readonly unknown[] = [];
    while (!entries.some((e) => (e as { last?: boolean }).last)) {
      entries = await tail.read();
      looks++;
      expect(looks).toBeLessThan(10);
    }
    expect(looks).toBe(Math.ceil(limits.window / limits.chunk));
    expect(entries.some((e) => (e as { first?: boolean }).first)).toBe(false);
    expect(entries.length).toBeLessThanOrEqual(limits.window / unit + 1);
    // One line of 20 MiB, then a short one: the long one is dropped, the next is read.
    const long = join(folder, 'long.jsonl');
    writeFileSync(long, `{"a":"${'y'.repeat(20 * unit)}"}\n{"after":1}\n`);
    const t2 = new TranscriptTail(long, [folder], limits);
    let got: readonly unknown[] = [];
    for (let i = 0; i < 5 && !got.length; i++) got = await t2.read();
    expect(got).toEqual([{ after: 1 }]);
  });
});

describe('clientFolders', () => {
  it("each client's transcripts folder, by the daemon's environment and the agent's own env", () => {
    const env = { HOME: '/home/u' };
    expect(clientFolders({ kind: 'claude', env: {} }, env)).toEqual(['/home/u/.claude/projects']);
    expect(clientFolders({ kind: 'claude', env: { CLAUDE_CONFIG_DIR: '/c' } }, env)).toEqual([
      '/home/u/.claude/projects',
      '/c/projects',
    ]);
    expect(clientFolders({ kind: 'codex', env: { CODEX_HOME: '/x' } }, env)).toEqual([
      '/home/u/.codex/sessions',
      '/x/sessions',
    ]);
    expect(clientFolders({ kind: 'gemini', env: { HOME: '/h2' } }, { GEMINI_CLI_HOME: '/g' })).toEqual([
      '/g/.gemini/tmp',
    ]);
    expect(clientFolders({ kind: 'gemini', env: { HOME: '/h2' } }, env)).toEqual([
      '/home/u/.gemini/tmp',
      '/h2/.gemini/tmp',
    ]);
    expect(clientFolders({ kind: 'generic', env: {} }, env)).toEqual([]);
  });
});
