/** terminal/hooks/transcript.ts: a transcript read on from where the last look ended. */
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TranscriptTail } from '../../../../src/terminal/hooks/transcript.js';

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('TranscriptTail', () => {
  it('reads only what was appended, keeps a line (and a character) cut short until it is whole, starts over on a new file', async () => {
    dir = mkdtempSync(join(tmpdir(), 'baton-transcript-'));
    const file = join(dir, 't.jsonl');
    const tail = new TranscriptTail(file);
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
  });
});
