/**
 * The PostgreSQL schema's migrations (src/bus/postgres/migrations/*.sql) against a real PostgreSQL this
 * file starts: a database left at schema version 1 by an older baton — conversations, archive rows
 * delivered and one never stamped, a waiting message its relay stored, and a daemon holding the lease —
 * is migrated to this baton's version and then works through the real bus: the lease (held, then taken
 * over), recovery (the unstamped record found), a stamp, a turn step. A schema newer than this baton is
 * refused, and two schemas in one database are two buses that never meet.
 *
 * The migrated schema must equal test/fixtures/postgres-schema.sql: the catalog's description of a
 * freshly created schema (test/helpers/pg-schema.ts). After adding a migration, regenerate it with
 *   BATON_UPDATE_SCHEMA=1 npx vitest run test/integration/migrate.test.ts
 * and review the difference like code.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { type Holder, LeaseHeldError, type Waiting } from '../../src/bus/bus.js';
import { openBus } from '../../src/bus/open.js';
import { openPool } from '../../src/bus/postgres/db.js';
import { migrate, SCHEMA_VERSION, schemaVersion } from '../../src/bus/postgres/migrate.js';
import { parseConfig, type Config } from '../../src/config/config.js';
import { stamped } from '../../src/core/record.js';
import { decide } from '../../src/core/turns.js';
import { ROOT } from '../helpers/harness.js';
import { query } from '../helpers/machines.js';
import { describeSchema } from '../helpers/pg-schema.js';
import { usePostgres } from '../helpers/postgres.js';

const server = usePostgres();
const SNAPSHOT = join(ROOT, 'test', 'fixtures', 'postgres-schema.sql');
const HEADER = `-- baton's PostgreSQL schema at version ${SCHEMA_VERSION}, as the catalog describes a freshly created one
-- (test/helpers/pg-schema.ts; :"schema" is bus.schema). test/integration/migrate.test.ts checks that a
-- migrated schema equals it. Regenerate: BATON_UPDATE_SCHEMA=1 npx vitest run test/integration/migrate.test.ts
`;

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A conversation of two agents on this machine ("alpha") in `schema`. */
function configFor(conversation: string, schema: string, url = server.url): Config {
  const dir = mkdtempSync(join(tmpdir(), 'baton-migrate-'));
  dirs.push(dir);
  const raw = {
    agents: { claude1: { kind: 'generic', command: 'x' }, claude2: { kind: 'generic', command: 'x' } },
    directions: { c1_to_c2: ['claude1', 'claude2'], c2_to_c1: ['claude2', 'claude1'] },
    inbox: { settle_ms: 200 },
    bus: { kind: 'postgres', url, conversation, schema },
  };
  return parseConfig(raw, join(dir, 'config.json'), dir, { BATON_HOST: 'alpha' });
}

const me = () => ({ pid: process.pid, host: hostname(), started_at: new Date().toISOString() });

/** A record as a version-1 baton archived it. */
const record = (n: number, from: string, to: string, delivered: boolean) => ({
  id: `msg_000${n}`,
  reply_to: n > 1 ? `msg_000${n - 1}` : null,
  type: 'message',
  content: `message ${n}`,
  sender: from,
  receiver: to,
  direction: from === 'claude1' ? 'c1_to_c2' : 'c2_to_c1',
  source_file: `000000000${n}.reply.json`,
  received_at: '2026-01-01T00:00:00.000Z',
  delivered_at: delivered ? '2026-01-01T00:00:01.000Z' : null,
});

/** Every waiting item of the bus's queues. */
type Delivery = ReturnType<ReturnType<typeof openBus>['delivery']>;
const items = async (d: Delivery): Promise<Waiting[]> => (await d.queues()).flatMap((q) => q.items);

/** The first waiting message through a turn step, decided by the turn rules. */
async function turn(d: Delivery, config: Config) {
  const [w] = await items(d);
  if (!w) throw new Error('nothing is waiting');
  const rules = { policy: config.turns.policy, agents: config.order };
  return d.commit(w, (state) => decide(state, w.direction, rules));
}

const q = (sql: string, params: unknown[] = []) => query(server.url, sql, params);

const STATE = {
  current_turn: 'claude2',
  last_message_id: 'msg_0003',
  message_counter: 3,
  pending_reply_to: 'msg_0003',
};
const RELAY_KEY = 'mig/alpha/c2_to_c1/1767225600000-4242-0-reply.json';

/**
 * What a version-1 baton left in the schema baton: conversation "mig", whose third message was committed
 * and never stamped, claude2's answer stored by its relay (with the key migration 2 must keep for good),
 * and a conversation "other" that nothing touches.
 */
async function seedVersion1(): Promise<void> {
  await q(`INSERT INTO baton.conversations (name, state, gen) VALUES ('mig', $1, 'gen-1'), ('other', $2, 'gen-2')`, [
    STATE,
    { current_turn: 'claude1', last_message_id: null, message_counter: 0, pending_reply_to: null },
  ]);
  for (const [n, from, to, delivered] of [
    [1, 'claude1', 'claude2', true],
    [2, 'claude2', 'claude1', true],
    [3, 'claude1', 'claude2', false],
  ] as const)
    await q(
      `INSERT INTO baton.archive (conversation, id, counter, person, receiver, delivered, record) VALUES ('mig', $1, $2, false, $3, $4, $5)`,
      [`msg_000${n}`, n, to, delivered, record(n, from, to, delivered)],
    );
  await q(
    `INSERT INTO baton.waiting (conversation, direction, file, body, relay_key) VALUES ('mig', 'c2_to_c1', 'reply.json', $1, $2)`,
    [JSON.stringify({ content: 'written before the upgrade' }), RELAY_KEY],
  );
}

/** A version-1 daemon holding the lease of "mig" on alpha: its session's advisory lock, as it took it, and a fresh row. */
async function holdLease(): Promise<{ session: pg.Client; holder: Holder }> {
  const session = new pg.Client({ connectionString: server.url });
  await session.connect();
  await session.query('SELECT pg_try_advisory_lock(hashtext($1), hashtext($2))', ['mig', 'alpha']);
  const holder = { pid: process.pid, host: hostname(), started_at: '2026-01-01T00:00:00.000Z' };
  await session.query(
    `INSERT INTO baton.leases (conversation, host, holder, generation, backend_pid, heartbeat_at) VALUES ('mig', 'alpha', $1, 7, pg_backend_pid(), now())`,
    [holder],
  );
  return { session, holder };
}

describe('migrating the PostgreSQL schema', () => {
  it('a freshly created schema is the snapshot (BATON_UPDATE_SCHEMA=1 rewrites it)', async () => {
    // Read only, before there is anything: version 0, nothing made (doctor asks this of a new database).
    expect(await schemaVersion(openPool(server.url), 'fresh')).toBe(0);
    expect(await migrate(openPool(server.url), { schema: 'fresh' })).toBe(0);
    expect(await schemaVersion(openPool(server.url), 'fresh')).toBe(SCHEMA_VERSION);
    const text = HEADER + (await describeSchema(server.url, 'fresh'));
    if (process.env.BATON_UPDATE_SCHEMA) writeFileSync(SNAPSHOT, text);
    expect(text).toBe(readFileSync(SNAPSHOT, 'utf8'));
  });

  it('a database at version 1, with conversations, archive rows and a held lease, migrates to the snapshot', async () => {
    const db = openPool(server.url);
    expect(await migrate(db, { schema: 'baton', to: 1 })).toBe(0);
    expect(await q('SELECT version FROM baton.meta')).toEqual([{ version: 1 }]);
    await seedVersion1();
    const old = await holdLease();
    try {
      // Migrated while that daemon holds the lease: 1 → 2 → 3, each recorded.
      expect(await migrate(db, { schema: 'baton' })).toBe(1);
      expect(await q('SELECT version FROM baton.meta')).toEqual([{ version: SCHEMA_VERSION }]);
      expect(await q('SELECT relay_key, conversation FROM baton.relayed')).toEqual([
        { relay_key: RELAY_KEY, conversation: 'mig' },
      ]);
      expect(await q('SELECT name, version FROM baton.conversations ORDER BY name')).toEqual([
        { name: 'mig', version: '0' },
        { name: 'other', version: '0' },
      ]);
      expect(HEADER + (await describeSchema(server.url, 'baton'))).toBe(readFileSync(SNAPSHOT, 'utf8'));
      await worksThroughTheBus(old);
    } finally {
      await old.session.end().catch(() => {});
    }
  });
});

/** The migrated conversation "mig" through the real bus: lease, recovery, stamp, a turn step. */
async function worksThroughTheBus(old: { session: pg.Client; holder: Holder }): Promise<void> {
  const config = configFor('mig', 'baton');
  const d = openBus(config).delivery();
  // The lease is still held by the daemon from before, alive (its heartbeat moves), and refused naming it…
  const beat = () => old.session.query(`UPDATE baton.leases SET heartbeat_at = now() WHERE conversation = 'mig'`);
  await beat();
  const beating = setInterval(() => void beat().catch(() => {}), 300);
  const refused = await d
    .lease(me(), () => {})
    .catch((err: unknown) => err)
    .finally(() => clearInterval(beating));
  expect(refused).toBeInstanceOf(LeaseHeldError);
  expect((refused as LeaseHeldError).holder).toEqual(old.holder);
  // …and once that daemon stops, taken with the next generation.
  await old.session.end();
  const lease = await d.lease(me(), () => {});
  try {
    expect(lease.generation).toBe(8);
    // Recovery finds the record committed and never stamped: possibly typed, so typed again flagged.
    const r = await d.recover();
    expect(r.state).toEqual(STATE);
    expect(r.unfinished).toEqual({ record: record(3, 'claude1', 'claude2', false), typed: true });
    await d.stamp(stamped(r.unfinished!.record, 'not_checked', true, new Date().toISOString()));
    expect(await q(`SELECT id, delivered FROM baton.archive WHERE conversation = 'mig' ORDER BY id`)).toEqual([
      { id: 'msg_0001', delivered: true },
      { id: 'msg_0002', delivered: true },
      { id: 'msg_0003', delivered: true },
    ]);
    // A turn step: claude2's waiting answer becomes msg_0004, the state's version one more.
    const c = await turn(d, config);
    if (c.kind !== 'committed') throw new Error(`not committed: ${c.kind}`);
    expect(c.record).toMatchObject({ id: 'msg_0004', reply_to: 'msg_0003', content: 'written before the upgrade' });
    await d.stamp(stamped(c.record, 'not_checked', false, new Date().toISOString()));
    expect(
      await q(`SELECT name, version, state->>'current_turn' AS turn FROM baton.conversations ORDER BY name`),
    ).toEqual([
      { name: 'mig', version: '1', turn: 'claude1' },
      { name: 'other', version: '0', turn: 'claude1' },
    ]);
    expect(await q('SELECT 1 FROM baton.waiting')).toEqual([]);
    expect(await q(`SELECT delivered FROM baton.archive WHERE id = 'msg_0004'`)).toEqual([{ delivered: true }]);
    await d.close();
  } finally {
    await lease.release();
  }
}

describe('schemas', () => {
  it('a schema newer than this baton is refused, naming both versions, by the migration and the bus', async () => {
    await q('CREATE DATABASE future');
    const url = server.url.replace(/\/postgres$/, '/future');
    const db = openPool(url);
    try {
      await migrate(db, { schema: 'baton' });
      await query(url, 'UPDATE baton.meta SET version = $1', [SCHEMA_VERSION + 1]);
      const newer = `the database's baton schema is version ${SCHEMA_VERSION + 1}, newer than this baton knows (${SCHEMA_VERSION}): upgrade baton`;
      await expect(migrate(db, { schema: 'baton' })).rejects.toThrow(newer);
      await expect(openBus(configFor('any', 'baton', url)).readState()).rejects.toThrow(newer);
      // Another schema of the same database says which one.
      await migrate(db, { schema: 'team_b' });
      await query(url, 'UPDATE team_b.meta SET version = $1', [SCHEMA_VERSION + 1]);
      await expect(migrate(db, { schema: 'team_b' })).rejects.toThrow(
        `the database's baton schema "team_b" is version`,
      );
    } finally {
      await db.end();
    }
  });

  it('two schemas in one database are two buses: the same conversation and machine in each, never meeting', async () => {
    const [a, b] = [configFor('same', 'team_a'), configFor('same', 'team_b_2')];
    const [busA, busB] = [openBus(a), openBus(b)];
    const [dA, dB] = [busA.delivery(), busB.delivery()];
    // Both leases at once: their advisory locks and tmux fence keys are the schema's own.
    const [lA, lB] = [await dA.lease(me(), () => {}), await dB.lease(me(), () => {})];
    try {
      expect([lA.generation, lB.generation]).toEqual([1, 1]);
      expect(lA.fence.key).not.toBe(lB.fence.key);
      await dA.recover();
      await dB.recover();
      const heard = { a: [] as string[], b: [] as string[] };
      await dA.watch((h) => heard.a.push(h.kind));
      await dB.watch((h) => heard.b.push(h.kind));
      heard.a.length = heard.b.length = 0; // what a new LISTEN session tells every listener
      // A post in A wakes A's daemon only (its own NOTIFY channel) and is a turn in A only.
      const c1 = a.directions.find((d) => d.from === 'claude1')!;
      await busA.post(c1, { content: 'to team a' });
      await expect.poll(() => heard.a, { timeout: 5000 }).toContain('messages');
      expect(await turn(dA, a)).toMatchObject({ kind: 'committed', record: { id: 'msg_0001', content: 'to team a' } });
      await new Promise((r) => setTimeout(r, 300));
      expect(heard.b).toEqual([]);
      expect(await items(dB)).toEqual([]);
      expect(await busB.records()).toEqual([]);
      // B hears its own post, and numbers its own turns.
      await busB.post(c1, { content: 'to team b' });
      await expect.poll(() => heard.b, { timeout: 5000 }).toContain('messages');
      expect(await turn(dB, b)).toMatchObject({ kind: 'committed', record: { id: 'msg_0001', content: 'to team b' } });
      expect((await busA.records()).map((r) => r.content)).toEqual(['to team a']);
      expect((await busB.readState())?.message_counter).toBe(1);
      await dA.close();
      await dB.close();
    } finally {
      await lA.release();
      await lB.release();
    }
  });
});
