/**
 * Random files of every shape under random names, thrown at a running daemon's direction folders, and
 * checks of where each must end — shared by the files bus's fuzz (test/integration/fuzz.test.ts) and the
 * PostgreSQL bus's (fuzz-postgres.test.ts). Seeded: the same seed throws the same files.
 */
import { execFileSync } from 'node:child_process';
import {
  closeSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  renameSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'vitest';
import { readRecorder, type rejectedPairs, waitFor } from './harness.js';

export const MAX_BYTES = 65536;
export const DIRS = { c1_to_c2: ['claude1', 'claude2'], c2_to_c1: ['claude2', 'claude1'] } as const;
export type Dir = keyof typeof DIRS;

/** mulberry32: small, fast, and the same sequence on every machine for a given seed. */
export function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  const chance = (q: number) => next() < q;
  return { next, int, pick, chance };
}
export type Rand = ReturnType<typeof prng>;

// ---- what goes into names and texts ------------------------------------------------------------

const WORDS = ['a', 'b', 'z', 'msg', 'reply', 'Draft', 'x1', '0', '42', '2025-11-21', 'ok', 'TODO'];
const ODD = [
  ' ',
  '  ',
  '"',
  "'",
  '`',
  '$',
  '$(id)',
  '\\',
  '*',
  '?',
  '[',
  ']',
  '#',
  '%',
  '&',
  ';',
  '|',
  '<',
  '>',
  '(',
  ')',
  '{',
  '}',
  '=',
  '+',
  ',',
  '@',
  '!',
  '^',
  '-',
  '_',
  '.',
  '..',
  'é',
  'ß',
  'Ω',
  'ねこ',
  '日本語',
  'عربي',
  'e\u0301',
  '🐈',
  '🎉',
  '👩\u200d💻',
  '\n',
  '\t',
  '\r',
  '\x01',
  '\x1b',
  '\x7f',
  '\u00a0',
  '\u202e',
  '\ufeff',
  '\u2028',
];
const PREFIXES = ['', '', '', '', '', '', '-', '--', '-rf ', ' ', '.', '~', '#'];
const CANDIDATE_SUFFIXES = [
  '.json',
  '.json',
  '.json',
  '.json',
  '.json',
  '.json',
  '.error.json',
  '.1.json',
  '.json.error.json',
  '.tmp.json',
  ' .json',
];
const OTHER_SUFFIXES = [
  '.json.tmp',
  '.tmp',
  '.json~',
  '~',
  '.JSON',
  '.Json',
  '.txt',
  '',
  '.json ',
  '.jsonl',
  '.json.bak',
  '.json.',
  '.json\n',
  'json',
];
const TEXT_PIECES = [
  'hello',
  'ok',
  ' ',
  '\n',
  '\r\n',
  '\r',
  '\t',
  '\x00',
  '\x03',
  '\x04',
  '\x07',
  '\x1b',
  '\x1b[2J',
  '\x1b]0;title\x07',
  '\x1b[201~',
  '\x1b[200~',
  '\x7f',
  '\u0085',
  '\u009b1m',
  'Enter',
  'C-c',
  'Escape',
  '$(rm -rf ~)',
  '`id`',
  '; kill-server',
  '"',
  "'",
  '\\',
  '/help',
  '!ls',
  'é',
  'ねこ',
  '日本語のテキスト',
  '🎉',
  '🐈\u200d⬛',
  '\u202e',
  '\ud800',
  '\udfff',
  '\ufffd',
  // U+FDD0, the PostgreSQL bus's escape character (sql/codec.ts), alone and as a look-alike of its escapes.
  '\ufdd0',
  '\ufdd00000',
  '\u2028',
];
const TYPES = ['message', 'question', 'response', 'task', 'signal', 'update', 'issue', 'handoff', 'request'];
const TIMESTAMPS = [
  '2025-11-21',
  '2025-11-21T18:00',
  '2025-11-21T18:00:00Z',
  '2025-11-21T18:00:00.123+09:00',
  '2025-11-21T18:00:00-05:00',
];
// Keys the schema knows: never produced by the random-object generator, so its objects lack `content` and nothing else.
const KNOWN = new Set(['content', 'sender', 'receiver', 'type', 'timestamp', 'subject', 'priority', 'data']);
export const DAEMON_KEYS = ['id', 'reply_to', 'received_at', 'delivered_at', 'direction', 'source_file', 'redelivered'];

function text(r: Rand, maxPieces: number): string {
  let s = '';
  for (let i = r.int(1, maxPieces); i > 0; i--) s += r.chance(0.5) ? `${r.pick(WORDS)} ` : r.pick(TEXT_PIECES);
  return s;
}

function key(r: Rand): string {
  for (;;) {
    // No "__proto__": the zod parse in src/core/message.ts drops such a key from the message and from data
    // (reported; docs/protocol.md §3 says other fields are kept as given), which this test would flag as a lost field.
    const k = r.chance(0.1)
      ? r.pick(['', ' ', 'constructor', 'toString', 'hasOwnProperty', 'ключ', '🔑', 'a.b', 'x\ny'])
      : `${r.pick(WORDS)}${r.int(0, 99)}`;
    if (!KNOWN.has(k)) return k;
  }
}

function json(r: Rand, depth: number): unknown {
  const c = r.int(0, depth > 0 ? 7 : 4);
  if (c === 0) return null;
  if (c === 1) return r.chance(0.5);
  if (c === 2) return r.pick([0, -1, 1e308, -0.5, 123456789012345, 2.71, 2 ** 53 + 1]);
  if (c <= 4) return text(r, 6);
  if (c === 5) return Array.from({ length: r.int(0, 4) }, () => json(r, depth - 1));
  return Object.fromEntries(Array.from({ length: r.int(0, 5) }, () => [key(r), json(r, depth - 1)]));
}

function object(r: Rand, depth: number): Record<string, unknown> {
  return Object.fromEntries(Array.from({ length: r.int(1, 6) }, () => [key(r), json(r, depth)]));
}

/** A message the schema accepts; with `route` it names sender and/or receiver (only valid in its own folder). */
function message(r: Rand, from: string, to: string, route: boolean): Record<string, unknown> {
  const m: Record<string, unknown> = {};
  if (r.chance(0.3)) m.timestamp = r.pick(TIMESTAMPS);
  if (route && r.chance(0.7)) m.sender = from;
  if (route && r.chance(0.7)) m.receiver = to;
  m.content = text(r, 40);
  if (r.chance(0.3)) m.type = r.pick(TYPES);
  if (r.chance(0.2)) m.subject = text(r, 4);
  if (r.chance(0.2)) m.priority = r.pick(['low', 'normal', 'high', 'urgent']);
  if (r.chance(0.3)) m.data = object(r, 3);
  if (r.chance(0.05)) m.data = { blob: 'd'.repeat(r.int(20_000, 60_000)) }; // near max_bytes (or over it: then rejected for size)
  if (r.chance(0.3)) Object.assign(m, object(r, 2)); // agents' own fields, kept as given
  // Fields the daemon owns, written by a confused agent: dropped, never archived as if they were ours.
  if (r.chance(0.1)) for (const k of DAEMON_KEYS) m[k] = r.pick(['msg_9999', null, true, 'x', 7]);
  return m;
}

// ---- one thrown file ---------------------------------------------------------------------------

type Fate = 'valid' | 'reject' | 'ignore';
export interface Thrown {
  i: number;
  dir: Dir;
  /** The name's exact bytes. */
  name: Buffer;
  fate: Fate;
  kind: string;
  /** For 'reject': what its note must say. */
  reason?: RegExp;
  node: 'file' | 'dir' | 'symlink' | 'fifo';
  /** Regular files: exactly what was written. */
  bytes?: Buffer;
  linkTarget?: string;
  /** Valid messages: the object written. */
  message?: Record<string, unknown>;
  /** The content is as valid (or not) in either folder: safe to hard-link into the other. */
  routeFree: boolean;
  /** What the content alone makes of it under a candidate name (the name may still make it ignored or rejected). */
  contentFate: 'valid' | 'reject';
  contentReason?: RegExp;
  mode: string;
}

export const label = (t: Pick<Thrown, 'dir' | 'name'>) => `${t.dir}/${JSON.stringify(t.name.toString('utf8'))}`;
export const keyOf = (dir: string, name: Buffer) => `${dir}/${name.toString('base64')}`;

/** A random name, unique in its folder, at most 255 bytes; non-UTF-8 only for candidates (see below). */
function name(r: Rand, taken: Set<string>, dir: Dir): Buffer {
  for (;;) {
    let stem = '';
    for (let n = r.int(1, 8); n > 0; n--) stem += r.chance(0.6) ? r.pick(WORDS) : r.pick(ODD);
    if (r.chance(0.03)) stem += 'L'.repeat(r.int(150, 260)); // very long: cut to the limit below
    const candidate = r.chance(0.8);
    const prefix = r.pick(PREFIXES);
    const suffix = candidate ? r.pick(CANDIDATE_SUFFIXES) : r.pick(OTHER_SUFFIXES);
    let stemBytes = Buffer.from(prefix + stem);
    // Names that are not UTF-8, only where the daemon should read them (`*.json`, no leading dot): the
    // daemon also moves a non-UTF-8 dot-file, `.tmp` or non-.json name (the inbox.ts bug hostile.test.ts shows).
    if (candidate && !(prefix + stem).startsWith('.') && r.chance(0.03))
      stemBytes = Buffer.concat([stemBytes, Buffer.from([r.pick([0xff, 0xfe, 0x80, 0xc3])])]);
    const suffixBytes = Buffer.from(suffix);
    if (stemBytes.length + suffixBytes.length > 255) {
      // Cut to 255 bytes on a character boundary (the long run of L is ASCII, so this rarely splits anything).
      let cut = 255 - suffixBytes.length;
      while (cut > 0 && (stemBytes[cut]! & 0xc0) === 0x80) cut--;
      stemBytes = stemBytes.subarray(0, cut);
    }
    const full = Buffer.concat([stemBytes, suffixBytes]);
    const s = full.toString('latin1');
    if (
      !full.length ||
      s === '.' ||
      s === '..' ||
      full.includes(0x2f) ||
      full.includes(0) ||
      taken.has(keyOf(dir, full))
    )
      continue;
    taken.add(keyOf(dir, full));
    return full;
  }
}

const isUtf8 = (b: Buffer) => {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(b);
    return true;
  } catch {
    return false;
  }
};
/** docs/protocol.md §3: `*.json`, not a dot-file (a name ending in .tmp or ~ does not end in .json). */
const isCandidate = (n: Buffer) => n.subarray(-5).toString('latin1') === '.json' && n[0] !== 0x2e;

type Content = Pick<Thrown, 'kind' | 'reason' | 'bytes' | 'message' | 'routeFree'> & { fate: 'valid' | 'reject' };

/** One content as thrown; size is checked before anything else: an over-size file is rejected for that. */
function made(c: {
  kind: string;
  bytes: Buffer;
  fate: 'valid' | 'reject';
  reason: RegExp | undefined;
  routeFree: boolean;
  message?: Record<string, unknown>;
}): Content {
  const { kind, bytes, fate, reason, routeFree, message } = c;
  if (bytes.length > MAX_BYTES)
    return {
      kind: kind === 'over max_bytes' ? kind : `${kind} (over max_bytes)`,
      bytes,
      fate: 'reject' as const,
      reason: new RegExp(`^${bytes.length} bytes is over inbox\\.max_bytes \\(${MAX_BYTES}\\)$`),
      routeFree,
    };
  return { kind, bytes, fate, reason, routeFree, message };
}

/** What a content shape draws from: the random stream, the folder's route, and how a value is written. */
interface Draw {
  r: Rand;
  from: string;
  to: string;
  serialize: (v: unknown) => Buffer;
}

function validRouted({ r, from, to, serialize }: Draw): Content {
  const route = r.chance(0.5);
  const m = message(r, from, to, route);
  const routeFree = m.sender === undefined && m.receiver === undefined;
  return made({ kind: 'valid', bytes: serialize(m), fate: 'valid', reason: undefined, routeFree, message: m });
}

function wrongRoute({ r, from, to, serialize }: Draw): Content {
  const m = message(r, from, to, false);
  if (r.chance(0.5)) m.sender = r.pick([to, 'ghost', 'user', '', 'Claude1', `${from} `]);
  else m.receiver = r.pick([from, 'nobody', '', 'CLAUDE2', `${to}\n`]);
  return made({
    kind: 'wrong route',
    bytes: serialize(m),
    fate: 'reject',
    reason:
      m.sender !== undefined
        ? /^sender: ".*" does not match this folder/s
        : /^receiver: ".*" does not match this folder/s,
    routeFree: false,
  });
}

function schemaError({ r, from, to, serialize }: Draw): Content {
  const m = message(r, from, to, false);
  const [field, value] = r.pick<[string, unknown]>([
    ['content', undefined],
    ['content', ''],
    ['content', 42],
    ['content', null],
    ['content', ['x']],
    ['content', {}],
    ['type', 'shout'],
    ['type', 3],
    ['priority', 'now!'],
    ['timestamp', 'yesterday'],
    ['timestamp', '2025-13-45'],
    ['timestamp', 17],
    ['subject', 5],
    ['data', [1]],
    ['data', 'x'],
    ['data', null],
    ['sender', 42],
    ['receiver', false],
  ]);
  if (value === undefined) delete m[field];
  else m[field] = value;
  return made({
    kind: 'schema',
    bytes: serialize(m),
    fate: 'reject',
    reason: new RegExp(`^${field}: `),
    routeFree: true,
  });
}

function randomObject({ r, serialize }: Draw): Content {
  const bytes = serialize(object(r, 3));
  return made({ kind: 'random object', bytes, fate: 'reject', reason: /^content: required$/, routeFree: true });
}

function notAnObject({ r, serialize }: Draw): Content {
  const v = r.pick([() => [json(r, 2)], () => r.int(-5, 5), () => text(r, 3), () => r.chance(0.5), () => null])();
  const reason = /^the message must be a JSON object, not /;
  return made({ kind: 'not an object', bytes: serialize(v), fate: 'reject', reason, routeFree: true });
}

function invalidJson({ r, from, to }: Draw): Content {
  const whole = JSON.stringify(message(r, from, to, false));
  let bytes: Buffer;
  for (;;) {
    bytes = Buffer.from(
      r.pick([
        () => whole.slice(0, r.int(0, whole.length - 1)),
        () => `${whole.slice(0, -1)},}`,
        () => whole.replace(/"/g, "'"),
        () => `{"content": "raw control \x01 byte"}`,
        () => `${whole}${whole}`,
        () => text(r, 5),
        () => 'NaN',
        () => '{',
      ])(),
    );
    try {
      JSON.parse(bytes.toString('utf8').replace(/^\ufeff/, ''));
    } catch {
      break; // only text that really does not parse
    }
  }
  // A text that is the start of a value other than an object (`"…` cut off) is told as that: no object.
  const reason = /^(invalid JSON|empty file$|not valid UTF-8$|the message must be a JSON object, not )/;
  return made({ kind: 'invalid JSON', bytes, fate: 'reject', reason, routeFree: true });
}

function randomBytes({ r }: Draw): Content {
  const bytes = Buffer.from(Array.from({ length: r.int(0, 3000) }, () => r.int(0, 255)));
  const reason = /^(invalid JSON|empty file$|not valid UTF-8$|the message must be a JSON object|content: required)/;
  return made({ kind: 'random bytes', bytes, fate: 'reject', reason, routeFree: true });
}

function deepData({ r }: Draw): Content {
  const depth = r.int(15_000, 25_000);
  const bytes = Buffer.from(`{"content":"deep","data":{"a":${'['.repeat(depth)}${']'.repeat(depth)}}}`);
  return made({ kind: 'deep data', bytes, fate: 'reject', reason: /nested too deeply/, routeFree: true });
}

function overMaxBytes({ r }: Draw): Content {
  const bytes = Buffer.from(JSON.stringify({ content: 'x'.repeat(r.int(MAX_BYTES, MAX_BYTES * 2)) }));
  return made({ kind: 'over max_bytes', bytes, fate: 'reject', reason: /over inbox\.max_bytes/, routeFree: true });
}

/** Valid JSON text around an invalid message: the most common agent mistakes, in bulk. */
function noContent({ r, from, to, serialize }: Draw): Content {
  const m = message(r, from, to, false);
  delete m.content;
  const bytes = serialize({ ...m, text: text(r, 10) });
  return made({ kind: 'schema', bytes, fate: 'reject', reason: /^content: required$/, routeFree: true });
}

/** Valid, without sender/receiver (so also fit for hard links into the other folder). */
function validRouteFree({ r, from, to, serialize }: Draw): Content {
  const m = message(r, from, to, false);
  return made({ kind: 'valid', bytes: serialize(m), fate: 'valid', reason: undefined, routeFree: true, message: m });
}

/** Each shape of content, for the rolls below its bound (the bounds grow; the last takes the rest). */
const SHAPES: Array<[number, (d: Draw) => Content]> = [
  [0.08, validRouted],
  [0.16, wrongRoute],
  [0.28, schemaError],
  [0.38, randomObject],
  [0.46, notAnObject],
  [0.58, invalidJson],
  [0.72, randomBytes],
  [0.735, deepData],
  [
    0.75,
    () => made({ kind: 'empty', bytes: Buffer.alloc(0), fate: 'reject', reason: /^empty file$/, routeFree: true }),
  ],
  [0.78, overMaxBytes],
  [0.92, noContent],
  [1, validRouteFree],
];

/** Content for a regular file: its bytes, and what the daemon must make of them in folder `dir`. */
function content(r: Rand, dir: Dir): Content {
  const [from, to] = DIRS[dir];
  const roll = r.next();
  const serialize = (v: unknown) =>
    Buffer.from(
      (r.chance(0.05) ? '\ufeff' : '') +
        (r.chance(0.3) ? JSON.stringify(v, null, r.pick([1, 2, '\t'])) : JSON.stringify(v)),
    );
  return SHAPES.find(([below]) => roll < below)![1]({ r, from, to, serialize });
}

// ---- throwing the files ------------------------------------------------------------------------

/**
 * Where files are thrown: the folder symbolic links point into, a staging folder on the same file system,
 * a name's full path in its direction folder.
 */
export interface Range {
  root: string;
  stage: string;
  at: (dir: Dir, n: Buffer) => Buffer;
}

/** One file about to be thrown: its number, folder, name and path, and the files a hard link may share. */
interface Throw extends Range {
  i: number;
  dir: Dir;
  name: Buffer;
  path: Buffer;
  linkable: Thrown[];
}

/** Which file it is: its number, folder and name. */
const placed = (f: Throw) => ({ i: f.i, dir: f.dir, name: f.name });

/** What the name makes of a file whose content alone would be `contentFate`. */
function fateOfName(n: Buffer, contentFate: 'valid' | 'reject', reason?: RegExp): { fate: Fate; reason?: RegExp } {
  return !isCandidate(n)
    ? { fate: 'ignore' }
    : !isUtf8(n)
      ? { fate: 'reject', reason: /^the file name is not valid UTF-8$/ }
      : { fate: contentFate, ...(reason ? { reason } : {}) };
}

/** Throw `count` files at the daemon, in bursts; what was thrown, in order. */
export async function throwFiles(r: Rand, range: Range, count: number): Promise<Thrown[]> {
  const taken = new Set<string>();
  const thrown: Thrown[] = [];
  const linkable: Thrown[] = [];
  for (let i = 0; i < count; ) {
    // A burst of files, then a short pause: the daemon sees some alone and many at once.
    for (let burst = r.int(1, 60); burst > 0 && i < count; burst--, i++) {
      const dir: Dir = r.chance(0.5) ? 'c1_to_c2' : 'c2_to_c1';
      const n = name(r, taken, dir);
      const t = throwOne(r, { ...range, i, dir, name: n, path: range.at(dir, n), linkable });
      if (!t) {
        taken.delete(keyOf(dir, n)); // already taken or rejected: nothing thrown this time, draw again
        i--;
        continue;
      }
      thrown.push(t);
    }
    await sleep(r.int(0, 40));
  }
  return thrown;
}

/** A directory, a symlink, a FIFO, a hard link or (mostly) a regular file; null when nothing was thrown. */
function throwOne(r: Rand, f: Throw): Thrown | null {
  const special = r.next();
  if (special < 0.015) return throwDirectory(r, f);
  if (special < 0.03) return throwSymlink(r, f);
  if (special < 0.04 && isUtf8(f.name)) return throwFifo(f);
  if (special < 0.06 && f.linkable.length) return throwHardLink(r, f);
  return throwRegular(r, f);
}

/** A directory, sometimes with something in it: made elsewhere and renamed in whole. */
function throwDirectory(r: Rand, f: Throw): Thrown {
  const s = join(f.stage, `d${f.i}`);
  mkdirSync(s);
  if (r.chance(0.5)) writeFileSync(join(s, 'inner.json'), '{"content": "inside a directory"}');
  renameSync(s, f.path);
  return {
    ...placed(f),
    kind: 'directory',
    node: 'dir',
    routeFree: true,
    contentFate: 'reject',
    mode: 'rename',
    ...fateOfName(f.name, 'reject', /^not a regular file \(a directory\)$/),
  };
}

function throwSymlink(r: Rand, f: Throw): Thrown {
  const target = r.pick([
    join(f.root, 'outside.json'),
    join(f.root, 'nowhere.json'),
    f.root,
    '/dev/zero',
    'relative.json',
  ]);
  symlinkSync(target, f.path);
  return {
    ...placed(f),
    kind: 'symlink',
    node: 'symlink',
    linkTarget: target,
    routeFree: true,
    contentFate: 'reject',
    mode: 'symlink',
    ...fateOfName(f.name, 'reject', /^a symbolic link \(never followed\)$/),
  };
}

function throwFifo(f: Throw): Thrown {
  execFileSync('mkfifo', [f.path.toString('utf8')]);
  return {
    ...placed(f),
    kind: 'FIFO',
    node: 'fifo',
    routeFree: true,
    contentFate: 'reject',
    mode: 'mkfifo',
    ...fateOfName(f.name, 'reject', /^not a regular file \(a FIFO\)$/),
  };
}

/** A hard link to a file thrown earlier (often into the other folder): the same inode under two names. */
function throwHardLink(r: Rand, f: Throw): Thrown | null {
  const src = r.pick(f.linkable);
  try {
    linkSync(f.at(src.dir, src.name), f.path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    return null;
  }
  return {
    ...src,
    reason: undefined,
    ...placed(f),
    mode: 'hard link',
    ...fateOfName(f.name, src.contentFate, src.contentReason),
  };
}

function throwRegular(r: Rand, f: Throw): Thrown {
  const drawn = content(r, f.dir);
  const mode = r.pick(['rename', 'rename', 'write', 'two writes']);
  // Written in place, an over-size file may be judged while it is still being written: the reason names the
  // size the daemon saw then — over the limit, and no more than the whole — or that it grew while being read.
  const c = mode !== 'rename' && drawn.bytes!.length > MAX_BYTES ? { ...drawn, reason: overSizeSeen() } : drawn;
  if (mode === 'rename') {
    // The well-behaved writer: a temp file elsewhere on the same file system, then rename(2).
    const s = join(f.stage, `f${f.i}`);
    writeFileSync(s, c.bytes!);
    renameSync(s, f.path);
  } else if (mode === 'write') {
    writeFileSync(f.path, c.bytes!); // open(O_TRUNC) then write: the daemon may see it empty or partial
  } else {
    const fd = openSync(f.path, 'w');
    const cut = r.int(0, c.bytes!.length);
    writeSync(fd, c.bytes!, 0, cut);
    writeSync(fd, c.bytes!, cut, c.bytes!.length - cut);
    closeSync(fd);
  }
  const t: Thrown = {
    ...placed(f),
    node: 'file',
    mode,
    ...c,
    contentFate: c.fate,
    ...(c.reason ? { contentReason: c.reason } : {}),
    ...fateOfName(f.name, c.fate, c.reason),
  };
  if (c.routeFree) f.linkable.push(t);
  return t;
}

/** The reason for an over-size file judged at any point of its write (the size is checked in checkRejected). */
const overSizeSeen = (): RegExp =>
  new RegExp(
    `^(?:\\d+ bytes is over inbox\\.max_bytes \\(${MAX_BYTES}\\)|over inbox\\.max_bytes \\(${MAX_BYTES}\\) while being read)$`,
  );

/** Archived records, as a bus gives them back. */
export type Archive = ReadonlyArray<{ id: string; [field: string]: unknown }>;
export type Stored = ReturnType<typeof rejectedPairs>['stored'];

/** Where each thrown file was found: a file in two places fails the test. */
export interface Places {
  byKey: Map<string, Thrown>;
  put: (k: string, where: string) => void;
}

/**
 * Left in the inboxes (`folder`: where each is): every non-candidate, untouched; valid messages waiting
 * their turn; nothing else (but the bus's own entries, `own`).
 */
export function checkInboxes(
  folder: (dir: Dir) => string,
  at: Range['at'],
  { byKey, put }: Places,
  own: readonly string[] = [],
): void {
  for (const dir of Object.keys(DIRS) as Dir[]) {
    for (const n of readdirSync(folder(dir), { encoding: 'buffer' })) {
      if (own.includes(n.toString('latin1'))) continue;
      const t = byKey.get(keyOf(dir, n));
      expect(t, `${label({ dir, name: n })} is in its inbox but was never thrown`).toBeDefined();
      expect(t!.fate, `${label(t!)} (${t!.kind}) is still in its inbox`).not.toBe('reject');
      put(keyOf(dir, n), 'inbox');
      const st = lstatSync(at(dir, n));
      if (t!.node === 'file') expect(readFileSync(at(dir, n)).equals(t!.bytes!), `${label(t!)} changed`).toBe(true);
      if (t!.node === 'dir') expect(st.isDirectory()).toBe(true);
      if (t!.node === 'fifo') expect(st.isFIFO()).toBe(true);
      if (t!.node === 'symlink') expect(readlinkSync(at(dir, n))).toBe(t!.linkTarget);
    }
  }
}

/** Archived: valid messages only, each once, content and the agent's own fields as written. */
export function checkArchived(archive: Archive, { byKey, put }: Places): void {
  for (const rec of archive) {
    const k = keyOf(String(rec.direction), Buffer.from(String(rec.source_file)));
    const t = byKey.get(k);
    expect(t, `${rec.id} came from ${k}, which was never thrown`).toBeDefined();
    expect(t!.fate, `${label(t!)} (${t!.kind}) was archived as ${rec.id}`).toBe('valid');
    put(k, rec.id);
    const [from, to] = DIRS[t!.dir];
    expect(rec).toMatchObject({ sender: from, receiver: to, type: t!.message!.type ?? 'message' });
    for (const [f, v] of Object.entries(t!.message!))
      if (!DAEMON_KEYS.includes(f)) expect(rec[f], `${rec.id}.${f}`).toEqual(v);
    expect(rec.content).toBe(t!.message!.content);
  }
}

/** Rejected: each with its note naming the file and a reason that fits what it was. */
export function checkRejected(rejectedDir: string, stored: Stored, { byKey, put }: Places): void {
  for (const { name: storedAs, note } of stored) {
    const k = keyOf(
      String(note.direction),
      note.file_name_base64 ? Buffer.from(note.file_name_base64, 'base64') : Buffer.from(note.file),
    );
    const t = byKey.get(k);
    expect(t, `rejected/${storedAs} (${JSON.stringify(note)}) was never thrown`).toBeDefined();
    expect(t!.fate, `${label(t!)} (${t!.kind}) was rejected: ${note.reason}`).toBe('reject');
    expect(note.reason, `${label(t!)} (${t!.kind})`).toMatch(t!.reason!);
    const seen = /^(\d+) bytes is over/.exec(String(note.reason));
    if (seen && t!.bytes) {
      // The size the daemon saw: over the limit, and never more than what was written.
      expect(Number(seen[1]), `${label(t!)}: ${note.reason}`).toBeGreaterThan(MAX_BYTES);
      expect(Number(seen[1]), `${label(t!)}: ${note.reason}`).toBeLessThanOrEqual(t!.bytes.length);
    }
    expect(note.stored_as).toBe(storedAs);
    put(k, `rejected/${storedAs}`);
    const st = lstatSync(join(rejectedDir, storedAs));
    if (t!.node === 'file')
      expect(
        readFileSync(join(rejectedDir, storedAs)).equals(t!.bytes!),
        `rejected/${storedAs} differs from ${label(t!)}`,
      ).toBe(true);
    if (t!.node === 'dir') expect(st.isDirectory()).toBe(true);
    if (t!.node === 'fifo') expect(st.isFIFO()).toBe(true);
    if (t!.node === 'symlink') expect(readlinkSync(join(rejectedDir, storedAs))).toBe(t!.linkTarget);
  }
}

/**
 * Each pane read exactly the messages meant for it, once each, in order, and nothing else but the notices
 * telling it why its own bad files were not delivered.
 */
export async function checkPanes(logs: Record<string, string>, archive: Archive): Promise<void> {
  const notice = /^\[baton\] (\d+ of )?your messages? /;
  for (const [agent, log] of Object.entries(logs)) {
    const mine = archive.filter((x) => x.receiver === agent).map((x) => x.id);
    const messages = () => readRecorder(log).pastes.filter((t) => !notice.test(t));
    await waitFor(`${agent} read ${mine.length} messages`, () => messages().length >= mine.length, 15_000).catch(
      () => {},
    );
    const read = readRecorder(log);
    expect(messages().map((t) => /^\[baton\] (msg_\d+) from /.exec(t)?.[1] ?? t.slice(0, 80))).toEqual(mine);
    expect(read.unsubmitted).toEqual([]);
    expect(read.stray).toBe('');
  }
}

/** The run in two lines: what was thrown, where it ended, how long it took, and each kind's count. */
export function summary(o: {
  seed: number;
  thrown: Thrown[];
  archived: number;
  rejected: number;
  held: number;
  throwMs: number;
  settleMs: number;
  began: number;
}): string {
  const count = (f: Fate) => o.thrown.filter((t) => t.fate === f).length;
  const kinds = Object.entries(
    o.thrown.reduce<Record<string, number>>((a, t) => {
      a[t.kind] = (a[t.kind] ?? 0) + 1;
      return a;
    }, {}),
  )
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  return (
    `fuzz seed ${o.seed}: ${o.thrown.length} files thrown in ${o.throwMs} ms ` +
    `(${count('valid')} valid, ${count('reject')} bad, ${count('ignore')} not candidates); ` +
    `${o.archived} archived, ${o.rejected} rejected, ${o.held} valid held, ${count('ignore')} left alone; ` +
    `quiet ${o.settleMs} ms later; ` +
    `0 lost, 0 in two places; ${Math.round((Date.now() - o.began) / 1000)} s in all\n  kinds: ${kinds}`
  );
}
