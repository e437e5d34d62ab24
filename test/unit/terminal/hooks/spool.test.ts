/**
 * terminal/hooks/spool.ts and intake.ts on real files: the spool an agent can write itself is read as
 * hostile. Only regular files this user owns, named as `baton hook` names its notes, not through a link
 * and not over the cap, are parsed; everything else is set aside with a short reason that never quotes
 * what it holds — and nothing of it blocks (a FIFO) or fills memory (/dev/zero).
 */
import { execFileSync } from 'node:child_process';
import {
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseConfig } from '../../../../src/config/config.js';
import { silent } from '../../../../src/lib/log.js';
import { SpoolIntake } from '../../../../src/terminal/hooks/intake.js';
import { noteLabel, readAgentStates, readNotes, removeNote, spoolDir } from '../../../../src/terminal/hooks/spool.js';
import { writeNote } from '../../../../src/terminal/hooks/write-note.js';
import type { HookNote } from '../../../../src/core/hook-note.js';

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const SECRET = 'SECRET-7f3a-the-first-bytes-of-another-file';
const name = (n: number, event = 'prompt') => `${String(n).padStart(15, '0')}-42-0-${event}.json`;
const note = { event: 'prompt', agent: 'a', at: '2026-01-01T00:00:00.000Z', payload: { prompt: 'hi' } };

describe('readNotes', () => {
  it('parses the notes baton hook writes, and sets everything else aside with a reason that quotes nothing', async () => {
    dir = mkdtempSync(join(tmpdir(), 'baton-spool-'));
    const spool = join(dir, 'spool');
    mkdirSync(spool);
    const secret = join(dir, 'secret.txt');
    writeFileSync(secret, `${SECRET}\n`);
    writeFileSync(join(spool, name(1)), JSON.stringify(note));
    execFileSync('mkfifo', [join(spool, name(2))]);
    symlinkSync(secret, join(spool, name(3)));
    symlinkSync('/dev/zero', join(spool, name(4)));
    writeFileSync(join(spool, name(5)), SECRET);
    writeFileSync(join(spool, name(6)), JSON.stringify({ event: SECRET }));
    writeFileSync(join(spool, name(7)), ' '.repeat(1001));
    mkdirSync(join(spool, name(8)));
    writeFileSync(join(spool, `\u001b]0;${SECRET}\u0007.json`), JSON.stringify(note));
    writeFileSync(join(spool, `.${name(9)}.tmp`), 'half written'); // a note being written: not looked at
    const t0 = performance.now();
    const got = await readNotes(spool, 1000);
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(got).toEqual([
      { name: `\u001b]0;${SECRET}\u0007.json`, invalid: 'not a name baton hook gives its notes' },
      { name: name(1), note },
      { name: name(2), invalid: 'not a regular file (a FIFO)' },
      { name: name(3), invalid: 'a symbolic link (never followed)' },
      { name: name(4), invalid: 'a symbolic link (never followed)' },
      { name: name(5), invalid: 'not JSON' },
      { name: name(6), invalid: 'not a hook note (event, agent, at, payload)' },
      { name: name(7), invalid: '1001 bytes, over the limit of 1000' },
      { name: name(8), invalid: 'not a regular file (a directory)' },
    ]);
    // What the log would say of each: its reason, and a name only when baton hook gave it.
    const said = got.map((s) => `${noteLabel(s.name)}: ${'invalid' in s ? s.invalid : 'a note'}`).join('\n');
    expect(said).not.toContain('SECRET');
    expect(said).not.toContain('\u001b');
    expect(said.split('\n')[0]).toBe(
      'a file not named as baton hook names its notes: not a name baton hook gives its notes',
    );
    // Set aside: a folder that took a note's name goes too (it would be listed again at every look).
    for (const s of got) await removeNote(spool, s.name);
    expect(await readNotes(spool, 1000)).toEqual([]);
    expect(existsSync(secret)).toBe(true); // the link went, not what it pointed to
  });

  it.runIf(process.getuid?.() === 0)('a note another user owns is not read (root can give one away)', async () => {
    dir = mkdtempSync(join(tmpdir(), 'baton-spool-'));
    writeFileSync(join(dir, name(1)), JSON.stringify(note));
    chownSync(join(dir, name(1)), 65534, 65534);
    expect(await readNotes(dir, 1000)).toEqual([{ name: name(1), invalid: 'owned by another user (uid 65534)' }]);
  });
});

describe('readAgentStates', () => {
  it('the states file replaced by a FIFO or a link reads as no states, at once', () => {
    dir = mkdtempSync(join(tmpdir(), 'baton-spool-'));
    mkdirSync(join(dir, '.hooks'));
    const file = join(dir, '.hooks', 'agents.json');
    writeFileSync(file, JSON.stringify({ a: { state: 'idle', since: 'now' } }));
    expect(readAgentStates(dir)).toEqual({ a: { state: 'idle', since: 'now' } });
    rmSync(file);
    execFileSync('mkfifo', [file]);
    expect(readAgentStates(dir)).toEqual({});
    rmSync(file);
    symlinkSync('/dev/zero', file);
    expect(readAgentStates(dir)).toEqual({});
  });
});

describe('writeNote', () => {
  it('never writes through a link left at its temp name: it fails instead, the linked file untouched', () => {
    dir = mkdtempSync(join(tmpdir(), 'baton-spool-'));
    const target = join(dir, 'victim.txt');
    writeFileSync(target, 'untouched');
    vi.spyOn(Date, 'now').mockReturnValue(1234);
    try {
      const first = writeNote(dir, note as HookNote); // learns the name scheme: time, pid, count, event
      const [, count] = /^0+1234-\d+-(\d+)-prompt\.json$/.exec(first)!;
      const next = `.${String(1234).padStart(15, '0')}-${process.pid}-${Number(count) + 1}-prompt.json.tmp`;
      symlinkSync(target, join(dir, next));
      expect(() => writeNote(dir, note as HookNote)).toThrow(/EEXIST/);
    } finally {
      vi.restoreAllMocks();
    }
    expect(readFileSync(target, 'utf8')).toBe('untouched');
  });
});

describe('SpoolIntake', () => {
  it('a spool replaced by a link is not listed through it: removed and made again', async () => {
    dir = mkdtempSync(join(tmpdir(), 'baton-spool-'));
    const config = parseConfig(
      { agents: { a: { kind: 'claude', command: 'x' }, b: { kind: 'claude', command: 'x' } } },
      join(dir, 'config.json'),
      dir,
      {},
    );
    const elsewhere = join(dir, 'elsewhere');
    mkdirSync(elsewhere);
    writeFileSync(join(elsewhere, name(1)), JSON.stringify(note));
    const spool = spoolDir(config.messageDir, 'a');
    mkdirSync(join(spool, '..'), { recursive: true });
    symlinkSync(elsewhere, spool);
    const intake = new SpoolIntake(config, silent);
    expect(await intake.notes('a')).toEqual([]);
    expect(existsSync(join(elsewhere, name(1)))).toBe(true);
    expect(await intake.notes('a')).toEqual([]); // a folder now
    writeFileSync(join(spool, name(2)), JSON.stringify(note));
    expect(await intake.notes('a')).toEqual([{ name: name(2), note }]);
  });
});
