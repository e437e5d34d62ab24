/**
 * Fuzz the PostgreSQL bus as fuzz.test.ts fuzzes the files bus (the same generators, helpers/fuzz-files.ts):
 * random files of every shape — random bytes and JSON, valid and nearly valid messages with NUL, lone
 * surrogates and U+FDD0 in their text and keys, huge and deeply nested ones, special files, hard links —
 * under random names, thrown into the folders of two machines that share one conversation in a real
 * PostgreSQL. Whatever comes, both daemons stay up, every file ends in exactly one place (left in its
 * folder when it is no candidate; relayed and then archived or waiting its turn in the database; or
 * rejected on its machine with a note), the archive holds IDs 1..N with every content and field byte for
 * byte, and the conversation is never stuck: whoever holds the turn has nothing waiting.
 * Seeded: replay with BATON_FUZZ_SEED=<seed> (BATON_FUZZ_FILES=<n>).
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { openBus } from '../../src/bus/open.js';
import { decodeText } from '../../src/bus/postgres/sql/codec.js';
import { parseConfig } from '../../src/config/config.js';
import {
  checkArchived,
  checkInboxes,
  checkPanes,
  checkRejected,
  DAEMON_KEYS,
  DIRS,
  type Dir,
  keyOf,
  label,
  MAX_BYTES,
  type Places,
  prng,
  summary,
  type Thrown,
  throwFiles,
} from '../helpers/fuzz-files.js';
import { rejectedPairs, waitFor } from '../helpers/harness.js';
import { type Machine, machinesConfig, query, useMachines } from '../helpers/machines.js';
import { usePostgres } from '../helpers/postgres.js';

const SEED = Number(process.env.BATON_FUZZ_SEED || 20261123);
const FILES = Number(process.env.BATON_FUZZ_FILES || 600);

const server = usePostgres();
const machine = useMachines();

type Row = { direction: string; file: string | null; body: string };

/** The rows a message can be in, read raw and decoded as the bus decodes them (sql/codec.ts). */
async function waitingRows(conversation: string): Promise<Row[]> {
  const rows = await query<Row>(server.url, 'SELECT direction, file, body FROM baton.waiting WHERE conversation = $1', [
    conversation,
  ]);
  return rows.map((r) => ({ direction: r.direction, file: r.file && decodeText(r.file), body: decodeText(r.body) }));
}

async function dbState(conversation: string) {
  const [row] = await query<{ state: { current_turn: string; message_counter: number } }>(
    server.url,
    'SELECT state FROM baton.conversations WHERE name = $1',
    [conversation],
  );
  const [last] = await query<{ delivered: boolean }>(
    server.url,
    'SELECT delivered FROM baton.archive WHERE conversation = $1 AND NOT person ORDER BY counter DESC LIMIT 1',
    [conversation],
  );
  const [{ n }] = (await query<{ n: number }>(
    server.url,
    'SELECT count(*)::int AS n FROM baton.rejected WHERE conversation = $1',
    [conversation],
  )) as [{ n: number }];
  return { state: row!.state, lastDelivered: last?.delivered ?? true, rejected: n };
}

/** Done: nothing due for rejection or relaying is left in a folder, the turn holder has nothing waiting, the last delivery is stamped. */
async function quiescence(conversation: string, folder: (d: Dir) => string, thrown: Thrown[]): Promise<void> {
  const present = () => {
    const s = new Set<string>();
    for (const dir of Object.keys(DIRS) as Dir[]) {
      for (const n of readdirSync(folder(dir), { encoding: 'buffer' })) s.add(keyOf(dir, n));
      if (readdirSync(join(folder(dir), '.relaying')).length) s.add(`${dir}/.relaying`);
    }
    return s;
  };
  let last = '';
  await waitFor(
    'quiescence',
    async () => {
      const here = present();
      if (thrown.some((t) => t.fate !== 'ignore' && here.has(keyOf(t.dir, t.name)))) return false;
      if ([...here].some((k) => k.endsWith('/.relaying'))) return false;
      const db = await dbState(conversation);
      const waiting = await waitingRows(conversation);
      if (waiting.some((w) => DIRS[w.direction as Dir][0] === db.state.current_turn) || !db.lastDelivered) return false;
      const snapshot = `${db.state.message_counter}/${db.rejected}/${waiting.length}/${here.size}`;
      await sleep(1500); // and nothing moves for a while
      const same = snapshot === last;
      last = snapshot;
      return same;
    },
    240_000,
    100,
  );
}

describe(`fuzz the PostgreSQL bus (seed ${SEED}, ${FILES} files; replay with BATON_FUZZ_SEED=${SEED})`, () => {
  it('random files of every shape on two machines: both daemons stay up, every file in exactly one place, byte for byte', async () => {
    const began = Date.now();
    const r = prng(SEED);
    const conversation = `fuzz-${process.pid}`;
    const config = machinesConfig(server.url, conversation, {
      inbox: { max_bytes: MAX_BYTES, settle_ms: 300 },
      delivery: { enter_delay_ms: 10 },
    });
    const [a, b] = [machine('alpha', config), machine('beta', config)];
    const logs = { claude1: await a.recorder('claude1'), claude2: await b.recorder('claude2') };
    const daemons = [await a.daemon(), await b.daemon()];
    // Each folder is on its sender's machine: claude1's on alpha, claude2's on beta.
    const on = (dir: Dir): Machine => (DIRS[dir][0] === 'claude1' ? a : b);
    const folder = (dir: Dir) => on(dir).path(dir);
    const at = (dir: Dir, n: Buffer) => Buffer.concat([Buffer.from(`${folder(dir)}/`), n]);
    // A daemon shows in status once it holds its lease; it makes its folders a moment later (recovery). A
    // file thrown before that had nowhere to go (CI saw ENOENT on the rename into beta's folder once).
    await waitFor(
      'both daemons made their folders',
      () => (Object.keys(DIRS) as Dir[]).every((d) => existsSync(folder(d))),
      10_000,
    );
    const stage = join(a.dir, 'stage');
    mkdirSync(stage);
    writeFileSync(join(a.dir, 'outside.json'), JSON.stringify({ content: 'a symlink target outside the folders' }));

    const throwing = Date.now();
    const thrown = await throwFiles(r, { root: a.dir, stage, at }, FILES);
    const throwMs = Date.now() - throwing;
    // What this fuzz is for: valid messages with what PostgreSQL cannot hold as such.
    const contents = thrown.filter((t) => t.fate === 'valid').map((t) => String(t.message!.content));
    for (const odd of [/\u0000/, /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/, /\ufdd0/])
      expect(
        contents.some((c) => odd.test(c)),
        `a valid message matching ${odd}`,
      ).toBe(true);
    await quiescence(conversation, folder, thrown).catch((err: unknown) => {
      throw new Error(`${String(err)}\n--- alpha:\n${a.output.slice(-3000)}\n--- beta:\n${b.output.slice(-3000)}`);
    });
    const settleMs = Date.now() - throwing - throwMs;
    for (const d of daemons) expect(d.proc.exitCode, 'the daemon is still running').toBeNull();

    // Every file in exactly one place.
    const byKey = new Map(thrown.map((t) => [keyOf(t.dir, t.name), t]));
    expect(byKey.size).toBe(thrown.length);
    const place = new Map<string, string>();
    const places: Places = {
      byKey,
      put: (k, where) => {
        expect(place.get(k), `${k} is in ${place.get(k)} and in ${where}`).toBeUndefined();
        place.set(k, where);
      },
    };
    checkInboxes(folder, at, places, ['.relaying']);
    const left = thrown.filter((t) => t.fate === 'valid' && place.get(keyOf(t.dir, t.name)) === 'inbox');
    expect(left.map(label), 'valid files are relayed, never left in a folder').toEqual([]);
    const bus = openBus(parseConfig(config, a.configFile, a.dir, { BATON_HOST: 'alpha' }));
    const archive = (await bus.records()).filter((x) => x.sender !== 'user').sort((x, y) => (x.id < y.id ? -1 : 1));
    checkArchived(archive, places);
    const held = await waitingRows(conversation);
    for (const w of held) {
      const k = keyOf(w.direction, Buffer.from(String(w.file)));
      const t = byKey.get(k);
      expect(t?.fate, `${k} waits in the database`).toBe('valid');
      places.put(k, 'waiting');
      const m = JSON.parse(w.body) as Record<string, unknown>;
      for (const [f, v] of Object.entries(t!.message!)) if (!DAEMON_KEYS.includes(f)) expect(m[f], f).toEqual(v);
    }
    let rejected = 0;
    for (const m of [a, b]) {
      const { stored, orphans } = rejectedPairs(m);
      expect(orphans).toEqual([]);
      checkRejected(m.path('rejected'), stored, places);
      rejected += stored.length;
    }
    const lost = thrown.filter((t) => !place.has(keyOf(t.dir, t.name)));
    expect(lost.map((t) => `${label(t)} (${t.kind}, ${t.fate})`)).toEqual([]);

    // The conversation: IDs 1..N, turns alternating, every one delivered; never stuck; each listed rejection once.
    const n = archive.length;
    expect(archive.map((x) => x.id)).toEqual(
      Array.from({ length: n }, (_, i) => `msg_${String(i + 1).padStart(4, '0')}`),
    );
    archive.forEach((x, i) => {
      expect(x.sender).toBe(i % 2 ? 'claude2' : 'claude1');
      expect(x.reply_to).toBe(i ? archive[i - 1]!.id : null);
      expect(x.delivered_at).toBeTruthy();
    });
    const { state } = await dbState(conversation);
    expect(state).toMatchObject({ message_counter: n, current_turn: n ? archive[n - 1]!.receiver : 'claude1' });
    expect(held.every((w) => DIRS[w.direction as Dir][0] !== state.current_turn)).toBe(true);
    expect((await dbState(conversation)).rejected).toBe(rejected);
    await checkPanes(logs, archive);
    console.log(summary({ seed: SEED, thrown, archived: n, rejected, held: held.length, throwMs, settleMs, began }));
  }, 300_000);
});
