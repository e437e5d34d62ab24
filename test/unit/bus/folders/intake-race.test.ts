/**
 * A file judged invalid is moved to rejected/ behind the queue, moments later; its writer may put another
 * file under the name in between. An adversary wrote garbage, then renamed a valid message over the same
 * name a few ms later: the move took whatever had the name by then, and valid messages went to rejected/
 * under the garbage's note. Here the writer's rename is made to land exactly around the daemon's own rename
 * of that name (node:fs/promises' rename, wrapped), so each order is tried every run, not by luck.
 */
import type * as fsp from 'node:fs/promises';
import {
  existsSync,
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
import { setTimeout as realSleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Judged, putBackLeftovers, verdict } from '../../../../src/bus/folders/aside.js';
import type { EventName } from '../../../../src/bus/events.js';
import { examine, type Examined } from '../../../../src/bus/folders/inbox.js';
import { Intake } from '../../../../src/bus/folders/intake.js';
import { silent } from '../../../../src/lib/log.js';

/** Run around the daemon's next rename of `from`: `before` it, `after` it (once each). */
const around = vi.hoisted(() => ({ hooks: [] as Array<{ from: string; before?: () => void; after?: () => void }> }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof fsp>();
  const rename: typeof real.rename = async (from, to) => {
    const i = around.hooks.findIndex((h) => h.from === String(from));
    const hook = i >= 0 ? around.hooks.splice(i, 1)[0] : undefined;
    hook?.before?.();
    try {
      await real.rename(from, to);
    } catch (err) {
      if (hook?.after) around.hooks.push({ from: hook.from, after: hook.after }); // after the one that works
      throw err;
    }
    hook?.after?.();
  };
  return { ...real, default: { ...real, rename }, rename };
});

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'baton-intake-race-'));
  around.hooks = [];
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

const route = { from: 'claude1', to: 'claude2' };
const dir = () => join(root, 'c1_to_c2');
const rejectedDir = () => join(root, 'rejected');
const asideDir = () => join(root, '.rejecting');

async function intakeOf(emitted: Array<{ event: EventName; file: unknown; reason: unknown }> = []) {
  const intake = new Intake([{ name: 'c1_to_c2', ...route, dir: dir() }], {
    maxBytes: 4096,
    settleMs: 60_000,
    rejectedDir: rejectedDir(),
    asideDir: asideDir(),
    alsoWatch: [],
    events: {
      emit: async (event, fields = {}) => void emitted.push({ event, file: fields.file, reason: fields.reason }),
    },
    log: silent,
  });
  await intake.ensureFolders();
  return intake;
}

/** A writer's atomic write: a temp file renamed over the name. */
function renameOver(name: string, body: string): void {
  writeFileSync(join(dir(), `.${name}.tmp`), body);
  renameSync(join(dir(), `.${name}.tmp`), join(dir(), name));
}

/** What waits in the folder after a fresh look, and whether it is ready. */
async function waiting(intake: Intake): Promise<Array<[string, boolean]>> {
  await intake.rescan();
  return (await intake.queues())[0]!.items.map((w) => [w.name, w.ready]);
}

const VALID = '{"content": "valid after all"}';
const rejectedFiles = () => readdirSync(rejectedDir()).filter((n) => !n.endsWith('.error.json'));
const note = (name: string) => JSON.parse(readFileSync(join(rejectedDir(), `${name}.error.json`), 'utf8'));

describe('a bad file replaced under its name around its move to rejected/', () => {
  it('replaced after it was judged, before the move: the valid one stays and is taken; nothing is rejected', async () => {
    const emitted: Array<{ event: EventName; file: unknown; reason: unknown }> = [];
    const intake = await intakeOf(emitted);
    writeFileSync(join(dir(), 'm.json'), 'garbage');
    around.hooks.push({ from: join(dir(), 'm.json'), before: () => renameOver('m.json', VALID) });
    expect(await waiting(intake)).toEqual([]); // judged; its move goes on behind the queue
    await intake.unwatch();
    expect(around.hooks).toEqual([]); // the writer's rename did land just before the move
    expect(rejectedFiles()).toEqual([]);
    expect(emitted).toEqual([]);
    expect(readFileSync(join(dir(), 'm.json'), 'utf8')).toBe(VALID);
    expect(await waiting(intake)).toEqual([['m.json', true]]);
    expect(readdirSync(join(asideDir(), 'c1_to_c2'))).toEqual([]);
  });

  it('replaced just after the daemon took it: the garbage is rejected with its own reason, the valid one stays', async () => {
    const emitted: Array<{ event: EventName; file: unknown; reason: unknown }> = [];
    const intake = await intakeOf(emitted);
    writeFileSync(join(dir(), 'm.json'), 'garbage');
    around.hooks.push({ from: join(dir(), 'm.json'), after: () => renameOver('m.json', VALID) });
    expect(await waiting(intake)).toEqual([]);
    await intake.unwatch();
    expect(around.hooks).toEqual([]);
    expect(rejectedFiles()).toEqual(['m.json']);
    expect(readFileSync(join(rejectedDir(), 'm.json'), 'utf8')).toBe('garbage');
    expect(note('m.json').reason).toMatch(/^invalid JSON: Unexpected token 'g'/);
    expect(emitted.map((e) => e.file)).toEqual(['m.json']);
    expect(await waiting(intake)).toEqual([['m.json', true]]);
  });

  it('replaced before the move and again after it: the first valid one goes back under a free name, never over the second', async () => {
    const intake = await intakeOf();
    writeFileSync(join(dir(), 'm.json'), 'garbage');
    around.hooks.push({
      from: join(dir(), 'm.json'),
      before: () => renameOver('m.json', '{"content": "first"}'),
      after: () => renameOver('m.json', '{"content": "second"}'),
    });
    expect(await waiting(intake)).toEqual([]);
    await intake.unwatch();
    expect(rejectedFiles()).toEqual([]);
    expect(readFileSync(join(dir(), 'm.json'), 'utf8')).toBe('{"content": "second"}');
    expect(readFileSync(join(dir(), 'm.1.json'), 'utf8')).toBe('{"content": "first"}');
    expect(await waiting(intake)).toEqual([
      ['m.1.json', true],
      ['m.json', true],
    ]);
  });

  it('a valid message refused by the turn rules, replaced by another before its move: only the one refused is rejected', async () => {
    const emitted: Array<{ event: EventName; file: unknown; reason: unknown }> = [];
    const intake = await intakeOf(emitted);
    writeFileSync(join(dir(), 'a.json'), '{"content": "refused"}');
    writeFileSync(join(dir(), 'b.json'), '{"content": "refused too"}');
    const items = (await waiting(intake)).map(([n]) => n);
    expect(items).toEqual(['a.json', 'b.json']);
    const f = intake.folderOf('c1_to_c2');
    const judged = (name: string): Judged => {
      const r = f.entries.get(name)!.result as Extract<Examined, { kind: 'valid' }>;
      return { kind: 'valid', known: r };
    };
    const [ja, jb] = [judged('a.json'), judged('b.json')];
    renameOver('a.json', '{"content": "a new one"}');
    await intake.rejector.reject(f, 'a.json', 'expired: test', ja);
    await intake.rejector.reject(f, 'b.json', 'expired: test', jb);
    expect(rejectedFiles()).toEqual(['b.json']);
    expect(emitted.map((e) => [e.file, e.reason])).toEqual([['b.json', 'expired: test']]);
    expect(await waiting(intake)).toEqual([['a.json', true]]);
    expect(readFileSync(join(dir(), 'a.json'), 'utf8')).toBe('{"content": "a new one"}');
  });

  it('a put-back that fails (its folder removed meanwhile) is tried again at the next rescan: never left aside', async () => {
    const intake = await intakeOf();
    writeFileSync(join(dir(), 'm.json'), 'garbage');
    around.hooks.push({
      from: join(dir(), 'm.json'),
      before: () => renameOver('m.json', VALID),
      after: () => rmSync(dir(), { recursive: true }), // empty now: the valid one was taken aside
    });
    expect(await waiting(intake)).toEqual([]);
    await intake.unwatch();
    expect(readdirSync(join(asideDir(), 'c1_to_c2'))).toEqual(['m.json']);
    expect(await waiting(intake)).toEqual([['m.json', true]]); // the folder made again, the file back in it
    expect(readdirSync(join(asideDir(), 'c1_to_c2'))).toEqual([]);
    expect(rejectedFiles()).toEqual([]);
  });
});

describe('left in .rejecting/ by a daemon killed mid-way', () => {
  it('goes back to its folder at start-up, under a free name when its own was taken meanwhile', async () => {
    const intake = await intakeOf();
    mkdirSync(join(asideDir(), 'c1_to_c2'), { recursive: true });
    writeFileSync(join(asideDir(), 'c1_to_c2', 'a.json'), '{"content": "left aside"}');
    writeFileSync(join(asideDir(), 'c1_to_c2', 'b.json'), 'garbage');
    writeFileSync(join(asideDir(), 'c1_to_c2', 'c.json'), '{"content": "left aside too"}');
    writeFileSync(join(dir(), 'c.json'), '{"content": "newer"}');
    expect((await putBackLeftovers(asideDir(), [{ name: 'c1_to_c2', dir: dir() }])).length).toBe(3);
    expect(readdirSync(join(asideDir(), 'c1_to_c2'))).toEqual([]);
    expect(readFileSync(join(dir(), 'c.1.json'), 'utf8')).toBe('{"content": "left aside too"}');
    expect(await waiting(intake)).toEqual([
      ['a.json', true],
      ['c.1.json', true],
      ['c.json', true],
    ]);
    await intake.unwatch();
    expect(rejectedFiles()).toEqual(['b.json']); // judged anew, and rejected as ever
  });

  it('nothing to do without the folder', async () => {
    expect(existsSync(asideDir())).toBe(false);
    expect(await putBackLeftovers(asideDir(), [{ name: 'c1_to_c2', dir: dir() }])).toEqual([]);
  });
});

describe('verdict: what a file taken aside is', () => {
  const valid = async (body: string) => {
    writeFileSync(join(root, 'x.json'), body);
    return (await examine({ dir: root, name: 'x.json', route, maxBytes: 4096 })) as Extract<
      Examined,
      { kind: 'valid' }
    >;
  };
  const unsettled = (ino: number, sig: string): Examined => ({ kind: 'unsettled', ino, sig, reason: 'cut off' });

  it('bad: rejected with its own reason whatever was judged', async () => {
    const found: Examined = { kind: 'bad', reason: 'its own' };
    for (const judged of [{ kind: 'bad' }, { kind: 'unsettled', ino: 1, sig: null }] as Judged[])
      expect(verdict(judged, found, 'judged')).toEqual({ kind: 'reject', reason: 'its own' });
    expect(verdict({ kind: 'valid', known: await valid('{"content": "x"}') }, found, 'judged').kind).toBe('reject');
  });

  it('valid: back, unless it is the very message refused', async () => {
    const [a, b] = [await valid('{"content": "a"}'), await valid('{"content": "b"}')];
    expect(verdict({ kind: 'bad' }, a, 'judged')).toEqual({ kind: 'back' });
    expect(verdict({ kind: 'unsettled', ino: 1, sig: null }, a, 'judged')).toEqual({ kind: 'back' });
    expect(verdict({ kind: 'valid', known: a }, b, 'expired')).toEqual({ kind: 'back' });
    expect(verdict({ kind: 'valid', known: a }, a, 'expired')).toEqual({ kind: 'reject', reason: 'expired' });
  });

  it('not valid yet: rejected only as the same file, unchanged (or, past the time limit, still that file)', () => {
    const judged: Judged = { kind: 'unsettled', ino: 7, sig: '7:3:1' };
    expect(verdict(judged, unsettled(7, '7:3:1'), 'settled')).toEqual({ kind: 'reject', reason: 'settled' });
    expect(verdict(judged, unsettled(7, '7:4:2'), 'settled')).toEqual({ kind: 'back' }); // still written
    expect(verdict(judged, unsettled(8, '8:3:1'), 'settled')).toEqual({ kind: 'back' }); // another file
    const late: Judged = { kind: 'unsettled', ino: 7, sig: null };
    expect(verdict(late, unsettled(7, '7:9:9'), 'still changing')).toEqual({
      kind: 'reject',
      reason: 'still changing',
    });
    expect(verdict(late, unsettled(8, '8:9:9'), 'still changing')).toEqual({ kind: 'back' });
    expect(verdict({ kind: 'bad' }, unsettled(7, '7:3:1'), 'judged')).toEqual({ kind: 'back' });
    expect(verdict({ kind: 'bad' }, { kind: 'gone' }, 'judged')).toEqual({ kind: 'gone' });
  });
});

describe('a move to rejected/ that fails', () => {
  it('puts the file back and tries again a second later, not at every look', async () => {
    // The second is the fake timers' (the retry's setTimeout, Date): the file system is real.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      const errors: string[] = [];
      const intake = new Intake([{ name: 'c1_to_c2', ...route, dir: dir() }], {
        maxBytes: 4096,
        settleMs: 60_000,
        rejectedDir: rejectedDir(),
        asideDir: asideDir(),
        alsoWatch: [],
        events: { emit: async () => {} },
        log: { ...silent, error: (line: string) => void errors.push(line) } as typeof silent,
      });
      await intake.ensureFolders();
      await intake.watch(() => {});
      rmSync(rejectedDir(), { recursive: true });
      writeFileSync(rejectedDir(), 'rejected/ cannot be made: a file has its name');
      writeFileSync(join(dir(), 'm.json'), 'garbage');
      await intake.rescan();
      // Real time for the file system's work, fake time for the retry's second (node:timers/promises is not faked).
      const settle = async (done: () => boolean) => {
        for (let t = 0; t < 200 && !done(); t++) {
          await intake.queues(); // the daemon's passes, as often as hints could come
          await realSleep(10);
        }
      };
      await settle(() => errors.length > 0);
      const first = Date.now();
      for (let t = 0; t < 90; t++) {
        await intake.queues();
        await vi.advanceTimersByTimeAsync(10);
        await realSleep(1); // time for a move, were one tried again now
      }
      expect(errors).toHaveLength(1); // 900 ms and 90 looks later: not tried again yet
      await vi.advanceTimersByTimeAsync(200);
      await settle(() => errors.length > 1);
      await realSleep(50);
      expect(errors).toHaveLength(2); // tried again once, a second after the first
      expect(Date.now() - first).toBeGreaterThanOrEqual(1000);
      expect(errors[0]).toMatch(/moving c1_to_c2\/m\.json to rejected\/ failed/);
      await intake.unwatch();
      expect(readdirSync(dir())).toEqual(['m.json']); // back in its folder, never lost
      expect(readdirSync(join(asideDir(), 'c1_to_c2'))).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });
});
