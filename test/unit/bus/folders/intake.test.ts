/**
 * The files bus's intake against real files in a temp folder (no daemon, no tmux): which files that are
 * not valid wait settle_ms — only the start of a JSON object, what a writer still at work leaves — and that
 * a file judged invalid leaves the queue at once, its move to rejected/ going on behind it, so the valid
 * file after it is in the queue before those moves are done.
 */
import { mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventName } from '../../../../src/bus/events.js';
import { examine } from '../../../../src/bus/folders/inbox.js';
import { Intake } from '../../../../src/bus/folders/intake.js';
import { silent } from '../../../../src/lib/log.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'baton-intake-'));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

const BOM = [0xef, 0xbb, 0xbf];
const route = { from: 'claude1', to: 'claude2' };

async function judge(body: string | number[]) {
  writeFileSync(join(root, 'm.json'), typeof body === 'string' ? body : Buffer.from(body));
  const r = await examine({ dir: root, name: 'm.json', route, maxBytes: 1 << 20 });
  return r.kind === 'bad' || r.kind === 'unsettled' ? { kind: r.kind, reason: r.reason } : { kind: r.kind };
}

describe('what waits settle_ms', () => {
  it.each([
    ['empty', '', 'empty file'],
    ['whitespace', ' \n', 'invalid JSON: '],
    ['a cut-off object', '{"content": "cut off', 'invalid JSON: '],
    ['a key without its value', '{"content"', 'invalid JSON: '],
    ['a UTF-8 character cut at the end', [0x7b, 0x22, 0x63, 0x22, 0x3a, 0x22, 0xe3, 0x81], 'not valid UTF-8'],
    ['part of a BOM', [0xef, 0xbb], 'not valid UTF-8'],
    ['a BOM, then a cut-off object', [...BOM, 0x7b], 'invalid JSON: '],
    ['two BOMs, then a cut-off object', [...BOM, ...BOM, 0x7b], 'invalid JSON: '],
  ])('%s: unsettled', async (_what, body, reason) => {
    const r = await judge(body);
    expect(r.kind).toBe('unsettled');
    expect((r as { reason: string }).reason.startsWith(reason)).toBe(true);
  });

  it.each([
    ['garbage', 'garbage', /^invalid JSON: /],
    ['a syntax error before the end', '{"content": "x",}', /^invalid JSON: /],
    ['junk after a whole object', '{"content": "x"} more', /^invalid JSON: /],
    ['two objects', '{"content": "x"}{"content": "y"}', /^invalid JSON: /],
    // The start of a value that is no object: the reason its whole text would get, however far it was written.
    ['the start of an array', '[1, 2', /^the message must be a JSON object, not an array$/],
    [
      'an array cut in a UTF-8 character',
      [0x5b, 0x22, 0xe3, 0x81],
      /^the message must be a JSON object, not an array$/,
    ],
    ['a BOM, then the start of an array', [...BOM, 0x5b], /^the message must be a JSON object, not an array$/],
    ['the start of a string', '"cut off', /^the message must be a JSON object, not string$/],
    ['a number (a digit may follow)', ' 12', /^the message must be a JSON object, not number$/],
    ['the start of true', 'tr', /^the message must be a JSON object, not boolean$/],
    ['the start of null', 'nu', /^the message must be a JSON object, not null$/],
    ['a raw control character in a string', '{"content": "a\u0001', /^invalid JSON: /],
    ['bytes that are not UTF-8', [0x7b, 0x22, 0xff, 0xfe], /^not valid UTF-8$/],
    ['a schema error', '{"text": "no content"}', /^content: required$/],
    ['an empty content', '{"content": ""}', /^content: must not be empty/],
    ['a sender of another folder', '{"sender": "claude2", "content": "x"}', /^sender: /],
    ['an array', '[1, 2]', /^the message must be a JSON object, not an array$/],
    ['null', 'null', /^the message must be a JSON object/],
    [
      'nested too deeply to parse or archive',
      `{"content":"x","data":{"a":${'['.repeat(200_000)}${']'.repeat(200_000)}}}`,
      /nested too deeply/,
    ],
  ])('%s: rejected at once', async (_what, body, reason) => {
    const r = await judge(body);
    expect(r.kind).toBe('bad');
    expect((r as { reason: string }).reason).toMatch(reason);
  });

  it('a valid message behind one BOM or two', async () => {
    expect(await judge([...BOM, ...Buffer.from('{"content": "x"}')])).toEqual({ kind: 'valid' });
    expect(await judge([...BOM, ...BOM, ...Buffer.from('{"content": "x"}')])).toEqual({ kind: 'valid' });
  });
});

describe('rejections behind the queue', () => {
  const dir = () => join(root, 'c1_to_c2');
  const rejectedDir = () => join(root, 'rejected');
  async function intakeOf(emitted: Array<{ event: EventName; file: unknown }>): Promise<Intake> {
    const intake = new Intake([{ name: 'c1_to_c2', from: 'claude1', to: 'claude2', dir: dir() }], {
      maxBytes: 4096,
      settleMs: 60_000,
      rejectedDir: rejectedDir(),
      asideDir: join(root, '.rejecting'),
      alsoWatch: [],
      events: { emit: async (event, fields = {}) => void emitted.push({ event, file: fields.file }) },
      log: silent,
    });
    await intake.ensureFolders();
    return intake;
  }

  it('files over max_bytes (judged at once, as ever) do not hold the valid file after them until they are moved', async () => {
    const emitted: Array<{ event: EventName; file: unknown }> = [];
    const intake = await intakeOf(emitted);
    for (let i = 0; i < 100; i++) writeFileSync(join(dir(), `a${String(i).padStart(3, '0')}.json`), 'x'.repeat(5000));
    writeFileSync(join(dir(), 'b.json'), '{"content": "valid"}');
    await intake.rescan();
    const [q] = await intake.queues();
    expect(q!.items.map((w) => w.name)).toEqual(['b.json']);
    expect(emitted.length).toBeLessThan(100); // the moves go on behind the queue
    await intake.unwatch();
    expect(emitted).toHaveLength(100);
    expect(readdirSync(rejectedDir()).filter((n) => n.endsWith('.error.json'))).toHaveLength(100);
  });

  it('files judged invalid leave the queue at once; their moves, notes and events go on behind it', async () => {
    const emitted: Array<{ event: EventName; file: unknown }> = [];
    const intake = await intakeOf(emitted);
    const [dirPath, rejectedPath] = [dir(), rejectedDir()];
    for (let i = 0; i < 200; i++) writeFileSync(join(dirPath, `a${String(i).padStart(3, '0')}.json`), `garbage ${i}`);
    writeFileSync(join(dirPath, 'b.json'), '{"content": "cut off'); // could still become valid: keeps its place
    writeFileSync(join(dirPath, 'c.json'), '{"content": "valid"}');
    await intake.rescan();

    const [q] = await intake.queues();
    // The valid file is in the queue, behind only the one that may still become valid …
    expect(q!.items.map((w) => [w.name, w.ready])).toEqual([
      ['b.json', false],
      ['c.json', true],
    ]);
    // … before the rejections it no longer waits for are done.
    expect(emitted.length).toBeLessThan(200);

    await intake.unwatch(); // waits for the moves under way
    const notes = readdirSync(rejectedPath).filter((n) => n.endsWith('.error.json'));
    expect(notes).toHaveLength(200);
    const note = JSON.parse(readFileSync(join(rejectedPath, 'a007.json.error.json'), 'utf8'));
    expect(note).toMatchObject({ file: 'a007.json', direction: 'c1_to_c2', stored_as: 'a007.json' });
    expect(note.reason).toMatch(/^invalid JSON: /);
    expect(emitted.filter((e) => e.event === 'rejected').map((e) => e.file)).toHaveLength(200);
    expect(new Set(emitted.map((e) => e.file)).size).toBe(200);
    expect(intake.rejected.take()).toHaveLength(100); // the latest 100 kept for telling the sender
    expect(readdirSync(dirPath).sort()).toEqual(['b.json', 'c.json']);
  });

  it('a file put under a judged name before its move is not moved with the old reason: it is looked at anew', async () => {
    const emitted: Array<{ event: EventName; file: unknown }> = [];
    const intake = await intakeOf(emitted);
    const dirPath = dir();
    for (let i = 0; i < 100; i++) writeFileSync(join(dirPath, `a${String(i).padStart(3, '0')}.json`), `garbage ${i}`);
    await intake.rescan();
    expect((await intake.queues())[0]!.items).toEqual([]); // all 100 judged; moved a few at a time, a099 last
    // Its writer puts a valid message under the name (temp file, rename) while the moves are under way.
    writeFileSync(join(dirPath, '.a099.tmp'), '{"content": "valid after all"}');
    renameSync(join(dirPath, '.a099.tmp'), join(dirPath, 'a099.json'));
    await intake.unwatch();
    expect(emitted.map((e) => e.file)).not.toContain('a099.json');
    expect(emitted).toHaveLength(99);
    expect(readdirSync(dirPath)).toEqual(['a099.json']);
    expect(readdirSync(rejectedDir())).not.toContain('a099.json');
    await intake.rescan();
    const [q] = await intake.queues();
    expect(q!.items.map((w) => [w.name, w.ready])).toEqual([['a099.json', true]]);
  });
});
