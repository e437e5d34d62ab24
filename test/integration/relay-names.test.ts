/**
 * Long file names on the PostgreSQL bus's relay (postgres/relay-claims.ts): the relay claimed a file as
 * `.relaying/<ms>-<pid>-<n>-<name>`, which passes the file system's 255-byte limit for a name over ~225
 * bytes; the rename failed (ENAMETOOLONG), the relay skipped the file at every pass, said nothing, and the
 * message waited for ever. Any name the files bus accepts must be relayed and delivered, and a relay of
 * such a name killed at any step must be finished at the next start, once.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openPool } from '../../src/bus/postgres/db.js';
import { relayInto } from '../../src/bus/postgres/relay-into.js';
import { pgOf } from '../../src/bus/postgres/rows.js';
import { ensureConversation } from '../../src/bus/postgres/store.js';
import { parseConfig } from '../../src/config/config.js';
import { initialState } from '../../src/core/turns.js';
import { silent } from '../../src/lib/log.js';
import { waitFor } from '../helpers/harness.js';
import { archived, machinesConfig, query, useMachines } from '../helpers/machines.js';
import { usePostgres } from '../helpers/postgres.js';

const server = usePostgres();
const machine = useMachines();
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
let n = 0;
const conversation = () => `relay-names-${process.pid}-${n++}`;
const alone = (conv: string) =>
  machinesConfig(server.url, conv, {
    agents: {
      claude1: { kind: 'generic', command: 'x', host: 'alpha' },
      claude2: { kind: 'generic', command: 'x', host: 'alpha' },
    },
  });

/** A name of exactly 255 bytes, ASCII. */
const ascii255 = `${'a'.repeat(250)}.json`;
/** A name of 253 bytes, mostly three-byte characters (ü is two, 漢 three). */
const multi = `ü${'漢'.repeat(82)}.json`;

describe('long file names on the relay (PostgreSQL bus)', () => {
  it('a 255-byte name and a ~250-byte multi-byte one are relayed and delivered, and nothing stays in .relaying/', async () => {
    expect(Buffer.byteLength(ascii255)).toBe(255);
    expect(Buffer.byteLength(multi)).toBe(253);
    const conv = conversation();
    const a = machine('alpha', alone(conv));
    await a.recorder('claude1');
    await a.recorder('claude2');
    await a.daemon();
    a.send('c1_to_c2', ascii255, { content: 'long ascii name' });
    await waitFor('the first delivered', async () => (await archived(server.url, conv))[0]?.delivered_at, 20_000);
    a.send('c2_to_c1', multi, { content: 'long multi-byte name' });
    await waitFor('the second delivered', async () => (await archived(server.url, conv))[1]?.delivered_at, 20_000);
    const records = await archived(server.url, conv);
    expect(records.map((r) => [r.content, (r as unknown as { source_file: string }).source_file])).toEqual([
      ['long ascii name', ascii255],
      ['long multi-byte name', multi],
    ]);
    await waitFor(
      '.relaying/ empty',
      () => a.ls('c1_to_c2', '.relaying').length + a.ls('c2_to_c1', '.relaying').length === 0,
    );
    expect(a.ls('rejected')).toEqual([]);
  }, 60_000);

  for (const at of ['relay_claimed', 'relay_stored'] as const) {
    it(`a relay of a 255-byte name killed at ${at}: finished at the next start, delivered once`, async () => {
      const conv = conversation();
      const a = machine('alpha', alone(conv));
      await a.recorder('claude1');
      await a.recorder('claude2');
      Object.assign(a.env, { BATON_FAILPOINT: at });
      const { proc } = await a.daemon();
      a.send('c1_to_c2', ascii255, { content: `killed at ${at}` });
      await waitFor('killed mid-relay', () => proc.exitCode !== null || proc.signalCode, 15_000);
      expect(proc.signalCode).toBe('SIGKILL');
      // Claimed in a folder of its own: `.relaying/<ms>-<pid>-<n>/<name>`.
      const [folder, ...more] = a.ls('c1_to_c2', '.relaying');
      expect(more).toEqual([]);
      expect(folder).toMatch(/^\d+-\d+-\d+$/);
      expect(a.ls('c1_to_c2', '.relaying', folder!)).toEqual([ascii255]);
      const keys = async () =>
        (
          await query<{ relay_key: string }>(
            server.url,
            'SELECT relay_key FROM baton.relayed WHERE conversation = $1',
            [conv],
          )
        ).map((r) => r.relay_key);
      expect(await keys()).toEqual(at === 'relay_stored' ? [`${conv}/alpha/c1_to_c2/${folder}/${ascii255}`] : []);

      Object.assign(a.env, { BATON_FAILPOINT: '' });
      await a.daemon();
      await waitFor('delivered', async () => (await archived(server.url, conv))[0]?.delivered_at, 20_000);
      await waitFor('.relaying/ empty', () => a.ls('c1_to_c2', '.relaying').length === 0);
      expect((await archived(server.url, conv)).map((r) => r.content)).toEqual([`killed at ${at}`]);
      expect(await keys()).toEqual([`${conv}/alpha/c1_to_c2/${folder}/${ascii255}`]);
      expect(a.ls('c1_to_c2')).toEqual(['.relaying']);
    }, 60_000);
  }

  it('leftovers in .relaying/ in either layout, one stored and delivered meanwhile: each stored once, empty folders removed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'baton-relay-names-'));
    dirs.push(dir);
    const conv = conversation();
    const config = parseConfig(machinesConfig(server.url, conv), join(dir, 'config.json'), dir, {
      BATON_HOST: 'alpha',
    });
    const pg = pgOf({ url: server.url, conversation: conv, host: 'alpha', schema: 'baton' });
    const db = openPool(server.url);
    try {
      await ensureConversation(db, pg, initialState(config.firstTurn));
      const relay = relayInto({ config, db, pg, events: { emit: async () => {} }, log: silent, held: () => null });
      await relay.ensureFolders();
      const folder = config.directions.find((d) => d.from === 'claude1')!.dir;
      const claimed = join(folder, '.relaying');
      const body = (content: string) => JSON.stringify({ content });
      writeFileSync(join(folder, multi), body('long, stored'));
      await relay.rescan();
      expect(await relay.run()).toBe(1);
      const rows = () =>
        query<{ seq: string; relay_key: string; file: string; body: string }>(
          server.url,
          'SELECT seq, relay_key, file, body FROM baton.waiting WHERE conversation = $1 ORDER BY seq',
          [conv],
        );
      const [row] = await rows();
      expect(row?.file).toBe(multi);
      const as = row!.relay_key.slice(`${conv}/alpha/c1_to_c2/`.length);
      expect(as).toMatch(new RegExp(`^\\d+-\\d+-\\d+/${multi}$`));

      // Delivered by the other machine (its waiting row taken), while this relay had been killed before
      // removing its claim; beside it, a file claimed flat (the layout of every name before, still that of a
      // short one) never stored, a long one claimed in its folder never stored, and an empty claim folder.
      await query(server.url, 'DELETE FROM baton.waiting WHERE seq = $1', [row!.seq]);
      mkdirSync(join(claimed, as.split('/')[0]!), { recursive: true });
      writeFileSync(join(claimed, as), body('long, stored'));
      writeFileSync(join(claimed, `1-2-3-${'o'.repeat(219)}.json`), body('flat, not stored'));
      mkdirSync(join(claimed, '1-2-4'));
      writeFileSync(join(claimed, '1-2-4', ascii255), body('long, not stored'));
      mkdirSync(join(claimed, '1-2-5'));

      await relay.resume();
      expect((await rows()).map((r) => [r.relay_key, r.file, JSON.parse(r.body).content])).toEqual([
        [`${conv}/alpha/c1_to_c2/1-2-3-${'o'.repeat(219)}.json`, `${'o'.repeat(219)}.json`, 'flat, not stored'],
        [`${conv}/alpha/c1_to_c2/1-2-4/${ascii255}`, ascii255, 'long, not stored'],
      ]);
      expect(readdirSync(claimed)).toEqual([]); // every claim gone, and its folder
      expect(readdirSync(folder)).toEqual(['.relaying']);
    } finally {
      await db.end();
    }
  });
});
