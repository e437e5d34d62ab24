/**
 * Hostile input and a hostile file system (docs/protocol.md §3, §6), beyond the bad files daemon.test.ts
 * covers: files that vanish or are renamed by someone else, folders removed under the daemon, huge data, thousands of
 * files at once, and agents the config does not know.
 */
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ResultPromise } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { Project, readRecorder, rejectedPairs, scaleTime, waitFor } from '../helpers/harness.js';
import { timingAt } from '../../src/lib/timing.js';

let p: Project;
afterEach(async () => {
  await p?.stop();
});

async function twoRecorders(
  config: Record<string, unknown> = {},
  scale = 1,
): Promise<{ logs: { claude1: string; claude2: string }; daemon: ResultPromise }> {
  p = new Project(config);
  scaleTime(p, scale);
  const logs = { claude1: await p.recorder('claude1'), claude2: await p.recorder('claude2') };
  const { proc } = await p.startDaemon();
  return { logs, daemon: proc };
}

const pad = (n: number, w = 4) => String(n).padStart(w, '0');
const errno = (err: unknown) => (err as NodeJS.ErrnoException).code;

describe('files and folders changed by someone else while the daemon runs', () => {
  it('held files deleted or renamed by someone else: nothing rejected, nothing else moves, a new *.json name is delivered under it', async () => {
    const { daemon } = await twoRecorders();
    const held = ['h1.json', 'h2.json', 'h3.json', 'h4.json', 'h5.json'];
    for (const n of held) p.send('c2_to_c1', n, { content: `claude2 wrote ${n}` });
    await waitFor('five held', () => held.every((n) => p.events().some((e) => e.event === 'held' && e.file === n)));
    const dir = p.path('c2_to_c1');
    unlinkSync(join(dir, 'h1.json')); // deleted
    renameSync(join(dir, 'h2.json'), join(dir, 'z-renamed.json')); // renamed to another candidate, which now sorts last
    renameSync(join(dir, 'h3.json'), join(dir, 'h3.json.tmp')); // renamed out of the daemon's sight
    renameSync(join(dir, 'h4.json'), join(p.dir, 'taken.json')); // moved out of the folder
    // The turn passes at once, so the daemon may still believe h1…h4 are there when it picks claude2's
    // first file: the claim of a vanished file must fail quietly and the next one be taken.
    p.send('c1_to_c2', 'a1.json', { content: 'first' });
    await waitFor('msg_0002', () => p.archive()[1]?.delivered_at);
    p.send('c1_to_c2', 'a2.json', { content: 'second' });
    await waitFor('msg_0004', () => p.archive()[3]?.delivered_at);
    expect(p.archive().map((r) => [r.id, r.direction, r.source_file, r.content])).toEqual([
      ['msg_0001', 'c1_to_c2', 'a1.json', 'first'],
      ['msg_0002', 'c2_to_c1', 'h5.json', 'claude2 wrote h5.json'],
      ['msg_0003', 'c1_to_c2', 'a2.json', 'second'],
      ['msg_0004', 'c2_to_c1', 'z-renamed.json', 'claude2 wrote h2.json'],
    ]);
    expect(p.ls('c2_to_c1')).toEqual(['h3.json.tmp']);
    expect(readFileSync(join(dir, 'h3.json.tmp'), 'utf8')).toBe(JSON.stringify({ content: 'claude2 wrote h3.json' }));
    expect(readFileSync(join(p.dir, 'taken.json'), 'utf8')).toBe(JSON.stringify({ content: 'claude2 wrote h4.json' }));
    expect(p.ls('rejected')).toEqual([]);
    await waitFor('four delivered events', () => p.events().filter((e) => e.event === 'delivered').length === 4);
    expect(p.events().filter((e) => e.event === 'rejected')).toEqual([]);
    expect(p.events().filter((e) => e.event === 'held' && e.file === 'z-renamed.json')).toHaveLength(1);
    expect(daemon.exitCode).toBeNull();
  });

  it('files that vanish as soon as they appear are never rejected while a conversation flows; valid ones racing the claim are delivered once or not at all', async () => {
    // A long settle time: a junk file lives a few ms, far from the 1 s it would need to be rejected.
    const { logs, daemon } = await twoRecorders({ inbox: { max_bytes: 1048576, settle_ms: 1000 } });
    mkdirSync(join(p.dir, 'elsewhere'));
    // Everything that waits settle_ms before rejection: the start of a JSON object, which a file still being
    // written could be (what can never become one is rejected at once: test/integration/flood.test.ts).
    const junk = [
      '{"content": "half',
      '',
      '  ',
      '{',
      '{"content": "x", "type"',
      Buffer.from([0x7b, 0x22, 0x63, 0x22, 0x3a, 0x22, 0xe3, 0x81]), // a UTF-8 character cut at the end
      Buffer.from([0xef, 0xbb]), // part of a BOM
    ];
    let stop = false;
    let vanished = 0;
    const vandal = async () => {
      for (let round = 0; !stop; round++) {
        const batch: string[] = [];
        for (let k = 0; k < 10; k++) {
          // Names that sort before the conversation's, so each briefly stands at the head of its folder.
          const f = p.path(k % 2 ? 'c1_to_c2' : 'c2_to_c1', `0v${pad(round)}-${k}.json`);
          writeFileSync(f, junk[(round + k) % junk.length]!);
          batch.push(f);
        }
        // Long enough (0–20 ms) for the daemon to see and examine some of them.
        await sleep((round % 5) * 5);
        batch.forEach((f, k) => {
          if (k % 3 === 0) {
            renameSync(f, f.replace(/\.json$/, '-renamed.json')); // renamed, then deleted under the new name
            unlinkSync(f.replace(/\.json$/, '-renamed.json'));
          } else if (k % 3 === 1) {
            renameSync(f, join(p.dir, 'elsewhere', `${round}-${k}.json`)); // taken away by another program
          } else {
            unlinkSync(f);
          }
          vanished++;
        });
      }
    };
    const flow = async () => {
      try {
        for (let i = 1; i <= 20; i++) {
          p.send(i % 2 ? 'c1_to_c2' : 'c2_to_c1', `m${pad(i, 2)}.json`, { content: `flow ${i}` });
          await waitFor(`flow message ${i}`, () => p.archive()[i - 1]?.delivered_at, 30_000);
        }
      } finally {
        stop = true;
      }
    };
    await Promise.all([flow(), vandal()]);
    // Any timer the daemon set for a junk file has fired by now (settle_ms, then a 2 s rescan).
    await sleep(2500);
    expect(p.archive().map((r) => r.source_file)).toEqual(
      Array.from({ length: 20 }, (_, i) => `m${pad(i + 1, 2)}.json`),
    );
    expect(p.ls('rejected')).toEqual([]);
    expect(p.events().filter((e) => e.event === 'rejected')).toEqual([]);
    expect([...p.ls('c1_to_c2'), ...p.ls('c2_to_c1')]).toEqual([]);
    expect(daemon.exitCode).toBeNull();

    // Valid files, each removed a moment after it appears: the daemon either claimed it first (then our
    // unlink finds nothing, and it must be archived exactly once) or never took it (then it is nowhere).
    const taken: string[] = [];
    const removed: string[] = [];
    for (let i = 0; i < 150; i++) {
      for (const [d, from] of [
        ['c1_to_c2', 'claude1'],
        ['c2_to_c1', 'claude2'],
      ] as const) {
        const name = `race-${pad(i, 3)}-${from}.json`;
        p.send(d, name, { content: `race ${i} from ${from}` });
        await sleep(i % 8);
        try {
          unlinkSync(p.path(d, name));
          removed.push(`${d}/${name}`);
        } catch (err) {
          if (errno(err) !== 'ENOENT') throw err;
          taken.push(`${d}/${name}`);
        }
      }
    }
    const n = 20 + taken.length;
    await waitFor(
      'every taken file delivered',
      () => p.archive().length === n && p.archive()[n - 1]?.delivered_at,
      30_000,
    );
    await sleep(500); // nothing more arrives
    const archive = p.archive();
    expect(archive.map((r) => r.id)).toEqual(Array.from({ length: n }, (_, i) => `msg_${pad(i + 1)}`));
    archive.forEach((r, i) => {
      expect(r.sender).toBe(i % 2 ? 'claude2' : 'claude1');
      expect(r.reply_to).toBe(i ? archive[i - 1]!.id : null);
    });
    expect(
      archive
        .slice(20)
        .map((r) => `${String(r.direction)}/${String(r.source_file)}`)
        .sort(),
    ).toEqual([...taken].sort());
    expect(p.state()).toMatchObject({ message_counter: n, last_message_id: archive[n - 1]!.id });
    expect(p.ls('rejected')).toEqual([]);
    expect([...p.ls('c1_to_c2'), ...p.ls('c2_to_c1')]).toEqual([]);
    expect(p.ls('.claimed', 'c1_to_c2').length + p.ls('.claimed', 'c2_to_c1').length).toBe(0);
    // Each delivered message typed once into its receiver's pane.
    for (const [agent, log] of Object.entries(logs)) {
      const mine = archive.filter((r) => r.receiver === agent).map((r) => r.id);
      await waitFor(`${agent} read ${mine.length}`, () => readRecorder(log).pastes.length >= mine.length, 10_000).catch(
        () => {},
      );
      expect(readRecorder(log).pastes.map((t) => /^\[baton\] (msg_\d+) /.exec(t)?.[1])).toEqual(mine);
    }
    expect(daemon.exitCode).toBeNull();
    console.log(
      `vanishing files: ${vanished} junk files vanished unrejected; of ${taken.length + removed.length} valid racers ${taken.length} were claimed first and delivered once, ${removed.length} removed first`,
    );
  });

  it('a direction folder removed while running, re-created by someone or left for the daemon to re-create: delivery goes on', async () => {
    const { daemon } = await twoRecorders();
    p.send('c1_to_c2', 'before.json', { content: 'before' });
    await waitFor('msg_0001', () => p.archive()[0]?.delivered_at);
    // claude1 speaks out of turn; then its whole folder is removed, held file and all.
    p.send('c1_to_c2', 'held.json', { content: 'lost with its folder' });
    await waitFor('held', () => p.events().some((e) => e.event === 'held' && e.file === 'held.json'));
    rmSync(p.path('c1_to_c2'), { recursive: true, force: true });
    // Nobody re-creates it: the daemon does (docs/protocol.md §2: it creates any missing folder).
    await waitFor('the daemon re-created c1_to_c2', () => existsSync(p.path('c1_to_c2')), 15_000);

    // claude2's folder is removed and made again at once by someone else, then written to.
    rmSync(p.path('c2_to_c1'), { recursive: true, force: true });
    mkdirSync(p.path('c2_to_c1'), { recursive: true });
    let t = Date.now();
    p.send('c2_to_c1', 'after-recreate.json', { content: 'into the new folder' });
    await waitFor('msg_0002', () => p.archive()[1]?.delivered_at, 15_000);
    const latencies = [Date.now() - t];
    // claude1 writes into the folder the daemon re-created; the held file went with the old one.
    t = Date.now();
    p.send('c1_to_c2', 'after-gone.json', { content: 'into the re-created folder' });
    await waitFor('msg_0003', () => p.archive()[2]?.delivered_at, 15_000);
    latencies.push(Date.now() - t);
    // And both keep working.
    for (const [i, d] of [
      [4, 'c2_to_c1'],
      [5, 'c1_to_c2'],
    ] as const) {
      t = Date.now();
      p.send(d, 'again.json', { content: `again ${i}` });
      await waitFor(`msg_000${i}`, () => p.archive()[i - 1]?.delivered_at, 15_000);
      latencies.push(Date.now() - t);
    }
    expect(p.archive().map((r) => `${String(r.direction)}/${String(r.source_file)}`)).toEqual([
      'c1_to_c2/before.json',
      'c2_to_c1/after-recreate.json',
      'c1_to_c2/after-gone.json',
      'c2_to_c1/again.json',
      'c1_to_c2/again.json',
    ]);
    expect(p.ls('rejected')).toEqual([]);
    expect([...p.ls('c1_to_c2'), ...p.ls('c2_to_c1')]).toEqual([]);
    expect(daemon.exitCode).toBeNull();
    console.log(`folder removed: write-to-delivery times after the removals ${latencies.join(', ')} ms`);
  });
});

describe('big and many', () => {
  it('a 900 KB data object is archived intact; a file of exactly max_bytes is delivered, one byte more is rejected', async () => {
    const maxBytes = 1048576;
    const { logs } = await twoRecorders({ inbox: { max_bytes: maxBytes, settle_ms: 300 } });
    // Varied keys, numbers, nesting and non-ASCII text, about 900 KB in all.
    const data: Record<string, unknown> = {};
    for (let i = 0; i < 900; i++)
      data[`k${i}`] = { i, text: `${'é'.repeat(200)}${'x'.repeat(580)}🐈`, list: [i, -i - 1, i / 7, true, null] };
    const big = JSON.stringify({ content: 'with a big data object', data });
    expect(Buffer.byteLength(big)).toBeGreaterThan(900_000);
    expect(Buffer.byteLength(big)).toBeLessThan(maxBytes);
    p.send('c1_to_c2', 'big.json', big);
    await waitFor('msg_0001', () => p.archive()[0]?.delivered_at, 20_000);
    expect(p.archive()[0]!.data).toEqual(data);

    // Padded to the byte: a file of exactly max_bytes, and one of max_bytes + 1.
    const sized = (bytes: number, content: string) => {
      const bare = JSON.stringify({ content, data: { pad: '' } });
      const body = JSON.stringify({ content, data: { pad: 'p'.repeat(bytes - bare.length) } });
      expect(Buffer.byteLength(body)).toBe(bytes);
      return body;
    };
    const exact = sized(maxBytes, 'exactly max_bytes');
    const over = sized(maxBytes + 1, 'one byte over');
    p.send('c2_to_c1', 'exact.json', exact);
    await waitFor('msg_0002', () => p.archive()[1]?.delivered_at, 20_000);
    expect(p.archive()[1]!.content).toBe('exactly max_bytes');
    expect((p.archive()[1]!.data as { pad: string }).pad).toHaveLength(
      maxBytes - JSON.stringify({ content: 'exactly max_bytes', data: { pad: '' } }).length,
    );
    p.send('c1_to_c2', 'over.json', over);
    await waitFor('over.json rejected', () => existsSync(p.path('rejected', 'over.json.error.json')), 20_000);
    const note = JSON.parse(readFileSync(p.path('rejected', 'over.json.error.json'), 'utf8')) as { reason: string };
    expect(note.reason).toMatch(new RegExp(`${maxBytes + 1} bytes is over inbox\\.max_bytes \\(${maxBytes}\\)`));
    expect(readFileSync(p.path('rejected', 'over.json'), 'utf8')).toBe(over); // moved intact
    expect(p.archive()).toHaveLength(2);
    // Only the content is typed, never the data.
    await waitFor(
      'both typed',
      () => readRecorder(logs.claude2).pastes.length === 1 && readRecorder(logs.claude1).pastes.length === 1,
    );
    expect(readRecorder(logs.claude2).pastes[0]!.length).toBeLessThan(1000);
  });

  it('2000 files dropped into the folders at once: 1900 bad ones rejected with a note each, 100 good ones delivered in turn and name order', async () => {
    // claude2 has no pane yet: nothing can be delivered until every file is in place, so the delivery
    // order depends on the names alone, not on which rename the daemon happened to see first.
    p = new Project({ inbox: { max_bytes: 4096, settle_ms: 300 } });
    const log1 = await p.recorder('claude1');
    const { proc: daemon } = await p.startDaemon();
    const began = Date.now();
    writeFileSync(join(p.dir, 'target.json'), JSON.stringify({ content: 'a link target' }));
    // Each bad kind: how to make it, and what its note must say.
    const kinds: Array<{
      kind: string;
      make: (path: string | Buffer, from: string, to: string) => void;
      reason: RegExp;
    }> = [
      { kind: 'truncated', make: (f) => writeFileSync(f, '{"content": "cut off'), reason: /^invalid JSON/ },
      { kind: 'empty', make: (f) => writeFileSync(f, ''), reason: /^empty file$/ },
      {
        kind: 'array',
        make: (f) => writeFileSync(f, '[{"content": "x"}]'),
        reason: /must be a JSON object, not an array/,
      },
      { kind: 'number', make: (f) => writeFileSync(f, '42'), reason: /must be a JSON object, not number/ },
      { kind: 'null', make: (f) => writeFileSync(f, 'null'), reason: /must be a JSON object, not null/ },
      { kind: 'no content', make: (f) => writeFileSync(f, '{"text": "x"}'), reason: /^content: required/ },
      {
        kind: 'empty content',
        make: (f) => writeFileSync(f, '{"content": ""}'),
        reason: /^content: must not be empty/,
      },
      {
        kind: 'content not a string',
        make: (f) => writeFileSync(f, '{"content": 7}'),
        reason: /^content: must be a string/,
      },
      {
        kind: 'wrong sender',
        make: (f, _from, to) => writeFileSync(f, JSON.stringify({ sender: to, content: 'x' })),
        reason: /^sender: "claude\d" does not match/,
      },
      {
        kind: 'unknown receiver',
        make: (f) => writeFileSync(f, JSON.stringify({ receiver: 'nobody', content: 'x' })),
        reason: /^receiver: "nobody" does not match/,
      },
      {
        kind: 'bad type',
        make: (f) => writeFileSync(f, JSON.stringify({ type: 'shout', content: 'x' })),
        reason: /^type: /,
      },
      {
        kind: 'bad priority',
        make: (f) => writeFileSync(f, JSON.stringify({ priority: 'now!', content: 'x' })),
        reason: /^priority: /,
      },
      {
        kind: 'bad timestamp',
        make: (f) => writeFileSync(f, JSON.stringify({ timestamp: 'yesterday', content: 'x' })),
        reason: /^timestamp: not an ISO-8601 time/,
      },
      {
        kind: 'data not an object',
        make: (f) => writeFileSync(f, JSON.stringify({ data: [1], content: 'x' })),
        reason: /^data: /,
      },
      {
        kind: 'over max_bytes',
        make: (f) => writeFileSync(f, JSON.stringify({ content: 'x'.repeat(5000) })),
        reason: /over inbox\.max_bytes \(4096\)/,
      },
      {
        kind: 'not UTF-8',
        make: (f) => writeFileSync(f, Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d])),
        reason: /^not valid UTF-8$/,
      },
      { kind: 'directory', make: (f) => mkdirSync(f), reason: /a directory/ },
      { kind: 'symlink', make: (f) => symlinkSync(join(p.dir, 'target.json'), f), reason: /symbolic link/ },
      { kind: 'FIFO', make: (f) => execFileSync('mkfifo', [String(f)]), reason: /FIFO/ },
    ];
    const stage = join(p.dir, 'stage');
    type Item = {
      i: number;
      dir: string;
      name: string;
      raw: Buffer | null;
      kind: string;
      reason?: RegExp;
      content?: string;
    };
    const items: Item[] = [];
    for (let i = 0; i < 2000; i++) {
      const valid = i % 20 === 0;
      // Good files alternate between the folders (f0000 claude1, f0020 claude2, …); bad ones by parity.
      const c1 = valid ? (i / 20) % 2 === 0 : i % 2 === 0;
      const [dir, from, to] = c1 ? ['c1_to_c2', 'claude1', 'claude2'] : ['c2_to_c1', 'claude2', 'claude1'];
      // Every 97th bad file also has a name that is not UTF-8.
      const raw =
        !valid && i % 97 === 1
          ? Buffer.concat([Buffer.from(`f${pad(i)}-`), Buffer.from([0xff]), Buffer.from('.json')])
          : null;
      const name = raw ? raw.toString('latin1') : `f${pad(i)}.json`;
      mkdirSync(join(stage, dir), { recursive: true });
      const staged = raw ? Buffer.concat([Buffer.from(`${join(stage, dir)}/`), raw]) : join(stage, dir, name);
      if (valid) {
        const content = `good ${i} from ${from}`;
        writeFileSync(staged, JSON.stringify({ sender: from, receiver: to, content }));
        items.push({ i, dir, name, raw, kind: 'valid', content });
      } else {
        // (mkfifo takes no raw-byte name: those few are plain truncated files, rejected for their name anyway)
        const k = kinds[raw ? 0 : i % kinds.length]!;
        k.make(staged, from, to);
        items.push({ i, dir, name, raw, kind: k.kind, reason: k.reason });
      }
    }
    const stagedIn = Date.now() - began;
    // Drop them in, in name order, as fast as rename(2) goes.
    const t0 = Date.now();
    for (const it of items) {
      const from = it.raw
        ? Buffer.concat([Buffer.from(`${join(stage, it.dir)}/`), it.raw])
        : join(stage, it.dir, it.name);
      const to = it.raw ? Buffer.concat([Buffer.from(`${p.path(it.dir)}/`), it.raw]) : p.path(it.dir, it.name);
      renameSync(from, to);
    }
    const droppedIn = Date.now() - t0;
    const bad = items.filter((x) => x.kind !== 'valid');
    const good = items.filter((x) => x.kind === 'valid');
    expect([bad.length, good.length]).toEqual([1900, 100]);
    // Each rejection moves the file and fsyncs its note: ~10–25 ms apiece here, far more on a loaded machine.
    await waitFor(
      '1900 rejected events',
      () => p.events().filter((e) => e.event === 'rejected').length >= bad.length,
      150_000,
      250,
    );
    const rejectedIn = Date.now() - t0;
    expect(p.archive()).toEqual([]); // claude2's pane is missing: claude1's first file waits
    await waitFor('pane_unavailable', () =>
      p.events().some((e) => e.event === 'pane_unavailable' && e.agent === 'claude2'),
    );

    const log2 = await p.recorderWhenReady('claude2');
    const t1 = Date.now();
    await waitFor('100 delivered', () => p.archive().length === 100 && p.archive()[99]?.delivered_at, 60_000, 250);
    const deliveredIn = Date.now() - t1;

    // Delivered alternately and in name order: f0000 (claude1), f0020 (claude2), f0040 (claude1), …
    const archive = p.archive();
    expect(archive.map((r) => `${String(r.direction)}/${String(r.source_file)}`)).toEqual(
      good.map((g) => `${g.dir}/${g.name}`),
    );
    expect(archive.map((r) => r.content)).toEqual(good.map((g) => g.content));
    expect(archive.map((r) => r.id)).toEqual(Array.from({ length: 100 }, (_, i) => `msg_${pad(i + 1)}`));
    expect(p.state()).toMatchObject({ current_turn: 'claude1', message_counter: 100, last_message_id: 'msg_0100' });

    // Every bad file is in rejected/ exactly once, with its note and the reason for its kind; nothing is left.
    expect([...p.ls('c1_to_c2'), ...p.ls('c2_to_c1')]).toEqual([]);
    const { stored, orphans } = rejectedPairs(p);
    expect(orphans).toEqual([]);
    expect(stored).toHaveLength(bad.length);
    const byKey = new Map(bad.map((b) => [`${b.dir}/${b.raw ? b.raw.toString('base64') : b.name}`, b]));
    const seen = new Set<string>();
    for (const { name, note } of stored) {
      const key = `${String(note.direction)}/${note.file_name_base64 ?? note.file}`;
      const b = byKey.get(key);
      expect(b, `a note for ${key}, which was never written`).toBeDefined();
      expect(seen.has(key), `${key} rejected twice`).toBe(false);
      seen.add(key);
      expect(note.stored_as).toBe(name);
      expect(note.reason, `${key} (${b!.kind})`).toMatch(b!.raw ? /^the file name is not valid UTF-8$/ : b!.reason!);
    }
    expect(seen.size).toBe(bad.length);

    // Events: one `rejected` per bad file, one `delivered` per good one, `held` once for each good file
    // that waited (all of claude2's 50; claude1's but its first), one pane_unavailable.
    const events = p.events();
    const rejectedEvents = events.filter((e) => e.event === 'rejected');
    expect(rejectedEvents).toHaveLength(bad.length);
    expect(new Set(rejectedEvents.map((e) => `${String(e.direction)}/${String(e.stored_as)}`)).size).toBe(bad.length);
    await waitFor('100 delivered events', () => p.events().filter((e) => e.event === 'delivered').length === 100);
    const held = events.filter((e) => e.event === 'held');
    expect(held.map((e) => `${String(e.direction)}/${String(e.file)}`).sort()).toEqual(
      good
        .slice(1)
        .map((g) => `${g.dir}/${g.name}`)
        .sort(),
    );
    expect(events.filter((e) => e.event === 'pane_unavailable')).toHaveLength(1);

    // Each pane read its 50, in order — and, between them, a few notices telling it why its bad files were
    // not delivered: 950 rejections each, gathered, one notice every ten seconds at most.
    const notice = /^\[baton\] (\d+ of )?your messages? /;
    for (const [agent, log] of [
      ['claude1', log1],
      ['claude2', log2],
    ] as const) {
      const mine = archive.filter((r) => r.receiver === agent).map((r) => r.id);
      const messages = () => readRecorder(log).pastes.filter((t) => !notice.test(t));
      await waitFor(`${agent} read 50`, () => messages().length >= 50, 15_000).catch(() => {});
      expect(messages().map((t) => /^\[baton\] (msg_\d+) /.exec(t)?.[1])).toEqual(mine);
      // The notices are typed between deliveries, the first within a second of the burst's end.
      await waitFor(`${agent} told`, () => readRecorder(log).pastes.some((t) => notice.test(t)), 15_000).catch(
        () => {},
      );
      const told = readRecorder(log).pastes.filter((t) => notice.test(t));
      expect(told.length, `${agent} was told ${told.length} times`).toBeGreaterThanOrEqual(1);
      expect(told.length, `${agent} was told ${told.length} times`).toBeLessThanOrEqual(2 + rejectedIn / 10_000);
    }
    expect(daemon.exitCode).toBeNull();
    console.log(
      `2000 files: staged in ${stagedIn} ms, dropped in ${droppedIn} ms, 1900 rejected ${rejectedIn} ms after the drop, 100 delivered in ${deliveredIn} ms once claude2 was up`,
    );
  }, 240_000);
});

describe('agents the config does not know', () => {
  it('a sender or receiver naming an unknown agent is rejected with a reason naming it', async () => {
    const { daemon } = await twoRecorders();
    p.send('c1_to_c2', 'to-nobody.json', { receiver: 'nobody', content: 'hello?' });
    p.send('c2_to_c1', 'from-ghost.json', { sender: 'ghost', content: 'boo' });
    p.send('c1_to_c2', 'from-user.json', { sender: 'user', content: 'people speak through baton send' });
    const notes = ['to-nobody.json', 'from-ghost.json', 'from-user.json'];
    await waitFor('three notes', () => notes.every((n) => existsSync(p.path('rejected', `${n}.error.json`))));
    const reason = (n: string) =>
      (JSON.parse(readFileSync(p.path('rejected', `${n}.error.json`), 'utf8')) as { reason: string }).reason;
    expect(reason('to-nobody.json')).toBe(
      'receiver: "nobody" does not match this folder, which carries messages to claude2',
    );
    expect(reason('from-ghost.json')).toBe(
      'sender: "ghost" does not match this folder, which carries messages from claude2',
    );
    expect(reason('from-user.json')).toMatch(/^sender: "user" /);
    p.send('c1_to_c2', 'ok.json', { content: 'still delivering' });
    await waitFor('delivered', () => p.archive()[0]?.delivered_at);
    expect(p.archive()).toHaveLength(1);
    expect(daemon.exitCode).toBeNull();
  });

  it('a folder between known agents that the turn policy never allows: each message rejected naming the expected receiver', async () => {
    // round_robin claude1 → claude2 → claude3 → claude1; c1_to_c3 is a legal folder in the config but
    // claude1 must always speak to claude2. Rejected whoever holds the turn, so it never sits held forever.
    p = new Project({
      agents: {
        claude1: { kind: 'generic', command: 'x' },
        claude2: { kind: 'generic', command: 'x' },
        claude3: { kind: 'generic', command: 'x' },
      },
      directions: {
        c1_to_c2: ['claude1', 'claude2'],
        c2_to_c3: ['claude2', 'claude3'],
        c3_to_c1: ['claude3', 'claude1'],
        c1_to_c3: ['claude1', 'claude3'],
      },
      turns: { policy: 'round_robin' },
    });
    for (const a of ['claude1', 'claude2', 'claude3']) await p.recorder(a);
    await p.startDaemon();
    p.send('c1_to_c3', 'skip.json', { content: 'claude3, not claude2' });
    await waitFor('rejected', () => existsSync(p.path('rejected', 'skip.json.error.json')));
    const note = JSON.parse(readFileSync(p.path('rejected', 'skip.json.error.json'), 'utf8')) as { reason: string };
    expect(note.reason).toBe('under the round_robin policy claude1 must send to claude2, not claude3');
    // Not claude1's turn any more: still rejected, not held.
    p.send('c1_to_c2', 'a.json', { content: 'to claude2' });
    await waitFor('msg_0001', () => p.archive()[0]?.delivered_at);
    p.send('c1_to_c3', 'skip2.json', { content: 'again' });
    await waitFor('rejected again', () => existsSync(p.path('rejected', 'skip2.json.error.json')));
    expect(p.events().some((e) => e.event === 'held' && e.file === 'skip2.json')).toBe(false);
    expect(p.ls('c1_to_c3')).toEqual([]);
  });
});

describe('names that are not UTF-8', () => {
  // docs/protocol.md §3: names starting with "." or ending in .tmp/~ are never read, and only *.json are messages —
  // whatever bytes the rest of the name has. A writer's temp file must not vanish under it mid-write.
  it('a dot-file, a *.tmp or a non-.json file whose name is not UTF-8 is left alone like any other', async () => {
    const t = timingAt(0.2);
    await twoRecorders({}, 0.2);
    const dir = p.path('c1_to_c2');
    const raw = (a: string, b: string) =>
      Buffer.concat([Buffer.from(`${dir}/${a}`), Buffer.from([0xff]), Buffer.from(b)]);
    for (const f of [raw('.draft-', '.json'), raw('m-', '.json.tmp'), raw('notes-', '.txt')])
      writeFileSync(f, 'a writer is still writing this');
    p.send('c1_to_c2', 'ok.json', { content: 'after them' });
    await waitFor('ok.json delivered', () => p.archive()[0]?.delivered_at);
    await sleep(2 * t.rescanMs); // names that are not UTF-8 are found by the rescan (every 2 s, here scaled)
    expect(readdirSync(dir, { encoding: 'buffer' })).toHaveLength(3);
    expect(p.ls('rejected')).toEqual([]);
  });
});
