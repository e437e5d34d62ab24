/**
 * The relay of the PostgreSQL bus (an agent's files moved into the database) against a real PostgreSQL:
 * a relay killed after its insert committed but before it removed the file finds that file again at the
 * next start. If the message was delivered meanwhile (its waiting row gone), it must not be stored — and
 * typed — a second time. An insert that fails while the daemon runs is tried again, not left in
 * `.relaying/` until a restart.
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
import { scaleTime, waitFor } from '../helpers/harness.js';
import { machinesConfig, query, useMachines } from '../helpers/machines.js';
import { usePostgres } from '../helpers/postgres.js';

const server = usePostgres();
const machine = useMachines();
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('relay (PostgreSQL bus)', () => {
  it('a relay cut short after its insert, its message delivered meanwhile: the next start does not store it again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'baton-relay-'));
    dirs.push(dir);
    const conversation = `relay-${process.pid}`;
    const config = parseConfig(machinesConfig(server.url, conversation), join(dir, 'config.json'), dir, {
      BATON_HOST: 'alpha',
    });
    const pg = pgOf({ url: server.url, conversation, host: 'alpha', schema: 'baton' });
    const db = openPool(server.url);
    try {
      await ensureConversation(db, pg, initialState(config.firstTurn));
      const relay = relayInto({ config, db, pg, events: { emit: async () => {} }, log: silent, held: () => null });
      await relay.ensureFolders();
      const folder = config.directions.find((d) => d.from === 'claude1')!.dir;
      const body = JSON.stringify({ content: 'exactly once' });
      writeFileSync(join(folder, 'reply.json'), body);
      await relay.rescan();
      expect(await relay.run()).toBe(1);
      const [row] = await query<{ seq: string; relay_key: string }>(
        server.url,
        'SELECT seq, relay_key FROM baton.waiting WHERE conversation = $1',
        [conversation],
      );
      expect(row?.relay_key).toMatch(new RegExp(`^${conversation}/alpha/c1_to_c2/\\d+-\\d+-\\d+-reply\\.json$`));

      // Delivered by the other machine (its waiting row taken), while this relay had been killed just
      // before removing its claimed file: the file is back in .relaying/ as it was.
      await query(server.url, 'DELETE FROM baton.waiting WHERE seq = $1', [row!.seq]);
      const claimed = join(folder, '.relaying');
      mkdirSync(claimed, { recursive: true });
      writeFileSync(join(claimed, row!.relay_key.split('/').at(-1)!), body);

      await relay.resume();
      expect(await query(server.url, 'SELECT seq FROM baton.waiting WHERE conversation = $1', [conversation])).toEqual(
        [],
      );
      expect(readdirSync(claimed)).toEqual([]); // and the claim is gone
    } finally {
      await db.end();
    }
  });

  it('an insert that fails while the daemon runs is tried again, with backoff and one log line, and status counts it', async () => {
    const conversation = `relay-retry-${process.pid}`;
    const alpha = machine('alpha', machinesConfig(server.url, conversation));
    scaleTime(alpha, 0.25);
    await alpha.daemon(); // the schema is there from now on
    // Every insert into relayed fails as a statement past statement_timeout does (57014), until the row goes;
    // each attempt counted by a sequence (which the failed transaction's rollback does not undo).
    await query(
      server.url,
      `CREATE TABLE public.relay_fault (on_ boolean);
       INSERT INTO public.relay_fault VALUES (true);
       CREATE SEQUENCE public.relay_attempts;
       CREATE FUNCTION public.relay_fault() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
           IF EXISTS (SELECT 1 FROM public.relay_fault) THEN
             PERFORM nextval('public.relay_attempts');
             RAISE EXCEPTION 'canceling statement due to statement timeout' USING ERRCODE = '57014';
           END IF;
           RETURN NEW;
         END $$;
       CREATE TRIGGER relay_fault BEFORE INSERT ON baton.relayed FOR EACH ROW EXECUTE FUNCTION public.relay_fault();`,
    );
    const stored = async () =>
      query<{ body: string }>(server.url, 'SELECT body FROM baton.waiting WHERE conversation = $1', [conversation]);
    try {
      alpha.send('c1_to_c2', 'hello.json', { content: 'stranded once' });
      await waitFor('claimed', () => alpha.ls('c1_to_c2', '.relaying').length === 1, 10_000);
      await waitFor('counted in status', async () => (await alpha.status())?.relaying === 1, 10_000);
      const attempts = async () =>
        Number((await query<{ n: string }>(server.url, 'SELECT last_value AS n FROM public.relay_attempts'))[0]!.n);
      await waitFor('several attempts failed', async () => (await attempts()) >= 4, 20_000);
      expect(await stored()).toEqual([]);
    } finally {
      await query(server.url, 'DELETE FROM public.relay_fault');
    }
    await waitFor('stored while the daemon runs', async () => (await stored()).length === 1, 15_000);
    expect(JSON.parse((await stored())[0]!.body)).toMatchObject({ content: 'stranded once' });
    await waitFor('nothing left in .relaying/', () => alpha.ls('c1_to_c2', '.relaying').length === 0, 10_000);
    expect((await alpha.status())?.relaying).toBe(0);
    expect(alpha.output.match(/cannot store c1_to_c2\/hello\.json/g), alpha.output).toHaveLength(1);
    expect(alpha.output).toMatch(/the files kept in \.relaying\/ are stored/);
    await query(server.url, 'DROP TRIGGER relay_fault ON baton.relayed');
  }, 60_000);
});
