/**
 * Fuzz: a few thousand random files — random bytes, random JSON, valid and nearly valid messages, special
 * files, hard links — under random names, written atomically or not, thrown at a running daemon in both
 * folders. Whatever comes, the daemon must stay up and every file must end in exactly one place
 * (docs/protocol.md §3, §6): left in its inbox (not a candidate name, or a valid message waiting its turn), archived,
 * or rejected with a note. Seeded: a failure replays with BATON_FUZZ_SEED=<seed> (BATON_FUZZ_FILES=<n>).
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type Archive,
  checkArchived,
  checkInboxes,
  checkPanes,
  checkRejected,
  DIRS,
  keyOf,
  label,
  MAX_BYTES,
  prng,
  type Dir,
  type Range,
  type Stored,
  summary,
  type Thrown,
  throwFiles,
} from '../helpers/fuzz-files.js';
import { Project, rejectedPairs, waitFor } from '../helpers/harness.js';

const SEED = Number(process.env.BATON_FUZZ_SEED || 20261122);
const FILES = Number(process.env.BATON_FUZZ_FILES || 2000);
let p: Project;
afterEach(async () => {
  await p?.stop();
});

/** Wait until the daemon is done with everything, and nothing moves for a while. */
async function quiescence(p: Project, thrown: Thrown[]): Promise<void> {
  const present = () => {
    const s = new Set<string>();
    for (const dir of Object.keys(DIRS))
      for (const n of readdirSync(p.path(dir), { encoding: 'buffer' })) s.add(keyOf(dir, n));
    return s;
  };
  const archived = () => readdirSync(p.path('archive')).filter((n) => /^msg_\d+\.json$/.test(n)).length;
  const quiet = () => {
    const here = present();
    // Every file due for rejection has left its inbox …
    if (thrown.some((t) => t.fate === 'reject' && here.has(keyOf(t.dir, t.name)))) return false;
    // … no valid message waits in the folder of the agent whose turn it is …
    const turn = p.state().current_turn as string;
    if (thrown.some((t) => t.fate === 'valid' && DIRS[t.dir][0] === turn && here.has(keyOf(t.dir, t.name))))
      return false;
    // … and the last delivery is finished.
    const n = archived();
    return (
      n === 0 ||
      Boolean(
        JSON.parse(readFileSync(p.path('archive', `msg_${String(n).padStart(4, '0')}.json`), 'utf8')).delivered_at,
      )
    );
  };
  const snapshot = () => `${archived()}/${p.ls('rejected').length}/${present().size}`;
  let last = '';
  await waitFor(
    'quiescence',
    async () => {
      if (!quiet()) return false;
      const s = snapshot();
      await sleep(1500); // and nothing moves for a while
      const same = s === snapshot() && s === last;
      last = s;
      return same;
    },
    180_000,
    100,
  );
}

/** Every file in exactly one place: its inbox, the archive or rejected/. */
function checkPlaces(
  p: Project,
  thrown: Thrown[],
  at: Range['at'],
): { held: Thrown[]; archive: Archive; stored: Stored } {
  const byKey = new Map(thrown.map((t) => [keyOf(t.dir, t.name), t]));
  expect(byKey.size).toBe(thrown.length);
  const place = new Map<string, string>();
  const put = (k: string, where: string) => {
    expect(place.get(k), `${k} is in ${place.get(k)} and in ${where}`).toBeUndefined();
    place.set(k, where);
  };
  checkInboxes((dir) => p.path(dir), at, { byKey, put });
  const held = thrown.filter((t) => t.fate === 'valid' && place.get(keyOf(t.dir, t.name)) === 'inbox');
  // They all wait in one folder: the turn holder has none left.
  expect(new Set<string>(held.map((t) => DIRS[t.dir][0])).has(p.state().current_turn as string)).toBe(false);
  const archive = p.archive();
  checkArchived(archive, { byKey, put });
  const { stored, orphans } = rejectedPairs(p);
  expect(orphans).toEqual([]);
  checkRejected(p.path('rejected'), stored, { byKey, put });
  const lost = thrown.filter((t) => !place.has(keyOf(t.dir, t.name)));
  expect(lost.map((t) => `${label(t)} (${t.kind}, ${t.fate})`)).toEqual([]);
  expect([...p.ls('.claimed', 'c1_to_c2'), ...p.ls('.claimed', 'c2_to_c1')]).toEqual([]);
  return { held, archive, stored };
}

/** The conversation itself: IDs in order, turns alternating, the state and the events that match. */
function checkConversation(
  p: Project,
  { archive, stored, held }: { archive: Archive; stored: Stored; held: Thrown[] },
) {
  const n = archive.length;
  expect(archive.map((x) => x.id)).toEqual(
    Array.from({ length: n }, (_, i) => `msg_${String(i + 1).padStart(4, '0')}`),
  );
  archive.forEach((x, i) => {
    expect(x.sender).toBe(i % 2 ? 'claude2' : 'claude1');
    expect(x.reply_to).toBe(i ? archive[i - 1]!.id : null);
    expect(x.delivered_at).toBeTruthy();
  });
  const state = p.state();
  expect(state).toMatchObject(
    n
      ? {
          message_counter: n,
          last_message_id: archive[n - 1]!.id,
          pending_reply_to: archive[n - 1]!.id,
          current_turn: archive[n - 1]!.receiver,
        }
      : { message_counter: 0, current_turn: 'claude1' },
  );
  const events = p.events();
  expect(events.filter((e) => e.event === 'delivered').map((e) => e.id)).toEqual(archive.map((x) => x.id));
  expect(events.filter((e) => e.event === 'rejected')).toHaveLength(stored.length);
  const heldEvents = events.filter((e) => e.event === 'held').map((e) => `${String(e.direction)}/${String(e.file)}`);
  expect(heldEvents.length, 'a held event once per file').toBe(new Set(heldEvents).size);
  // Every message still waiting was examined and found out of turn.
  for (const t of held)
    expect(heldEvents, `${label(t)} waits without a held event`).toContain(`${t.dir}/${t.name.toString('utf8')}`);
}

describe(`fuzz (seed ${SEED}, ${FILES} files; replay with BATON_FUZZ_SEED=${SEED})`, () => {
  it('random files of every shape under random names: the daemon stays up and every file ends in exactly one place', async () => {
    const began = Date.now();
    const r = prng(SEED);
    console.log(
      `fuzz seed ${SEED} (replay: BATON_FUZZ_SEED=${SEED} BATON_FUZZ_FILES=${FILES} npx vitest run test/integration/fuzz.test.ts)`,
    );
    p = new Project({ inbox: { max_bytes: MAX_BYTES, settle_ms: 300 }, delivery: { enter_delay_ms: 10 } });
    const logs = { claude1: await p.recorder('claude1'), claude2: await p.recorder('claude2') };
    const { proc: daemon } = await p.startDaemon();
    const stage = join(p.dir, 'stage');
    mkdirSync(stage);
    writeFileSync(join(p.dir, 'outside.json'), JSON.stringify({ content: 'a symlink target outside the folders' }));
    const at = (dir: Dir, n: Buffer) => Buffer.concat([Buffer.from(`${p.path(dir)}/`), n]);

    const throwing = Date.now();
    const thrown = await throwFiles(r, { root: p.dir, stage, at }, FILES);
    const throwMs = Date.now() - throwing;
    await quiescence(p, thrown);
    const settleMs = Date.now() - throwing - throwMs;
    expect(daemon.exitCode, 'the daemon is still running').toBeNull();
    daemon.kill('SIGTERM');
    const stopped = await daemon;
    expect(stopped.exitCode, `exit after SIGTERM (signal ${String(stopped.signal)})`).toBe(0);

    const { held, archive, stored } = checkPlaces(p, thrown, at);
    checkConversation(p, { archive, stored, held });
    await checkPanes(logs, archive);
    const counts = { archived: archive.length, rejected: stored.length, held: held.length };
    console.log(summary({ seed: SEED, thrown, ...counts, throwMs, settleMs, began }));
  }, 300_000);
});
