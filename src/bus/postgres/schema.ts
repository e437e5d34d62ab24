/**
 * baton's schema in PostgreSQL (SPEC §10: created and migrated by baton itself, versioned, never by
 * hand). Everything lives in the schema `baton`; every row names its conversation, so one database holds
 * many. Migrations run in one transaction under an advisory lock, so two machines starting at once
 * migrate once. `baton doctor` compares `baton.meta.version` with SCHEMA_VERSION.
 */
import type { Db } from './db.js';
import { tx } from './db.js';

export const SCHEMA_VERSION = 3;

/** Migration N takes the schema from version N-1 to N. Never edit one that shipped: add the next. */
const MIGRATIONS: string[] = [
  `CREATE TABLE baton.conversations (
     name text PRIMARY KEY,
     state jsonb NOT NULL,
     user_counter integer NOT NULL DEFAULT 0,
     gen text NOT NULL,
     created_at timestamptz NOT NULL DEFAULT now()
   );
   -- Messages waiting in a direction (status 'waiting') or for a person's approval ('approval').
   -- relay_key: the relaying machine's handle for the file it moved in, so a relay cut short is not
   -- stored twice.
   CREATE TABLE baton.waiting (
     seq bigserial PRIMARY KEY,
     conversation text NOT NULL,
     direction text NOT NULL,
     file text,
     body text NOT NULL,
     status text NOT NULL DEFAULT 'waiting',
     relay_key text UNIQUE,
     created_at timestamptz NOT NULL DEFAULT now()
   );
   CREATE INDEX waiting_by_conversation ON baton.waiting (conversation, seq);
   CREATE TABLE baton.archive (
     conversation text NOT NULL,
     id text NOT NULL,
     counter integer NOT NULL,
     person boolean NOT NULL,
     receiver text NOT NULL,
     delivered boolean NOT NULL DEFAULT false,
     request text,
     record jsonb NOT NULL,
     PRIMARY KEY (conversation, id)
   );
   CREATE TABLE baton.rejected (
     seq bigserial PRIMARY KEY,
     conversation text NOT NULL,
     stored_as text NOT NULL,
     file text,
     direction text,
     reason text NOT NULL,
     body text,
     rejected_at timestamptz NOT NULL DEFAULT now()
   );
   CREATE TABLE baton.requests (
     seq bigserial PRIMARY KEY,
     conversation text NOT NULL,
     name text NOT NULL UNIQUE,
     host text NOT NULL,
     body jsonb NOT NULL,
     taken boolean NOT NULL DEFAULT false,
     reply jsonb,
     answered_at timestamptz
   );
   CREATE TABLE baton.events (
     seq bigserial PRIMARY KEY,
     conversation text NOT NULL,
     body jsonb NOT NULL
   );
   CREATE INDEX events_by_conversation ON baton.events (conversation, seq);
   CREATE TABLE baton.leases (
     conversation text NOT NULL,
     host text NOT NULL,
     holder jsonb NOT NULL,
     generation bigint NOT NULL,
     backend_pid integer,
     heartbeat_at timestamptz NOT NULL,
     released boolean NOT NULL DEFAULT false,
     PRIMARY KEY (conversation, host)
   );`,
  // 2: relay keys outlive their waiting rows. A relay killed after its insert committed but before it
  // removed the file finds the file again at the next start; if the message was delivered meanwhile (its
  // waiting row gone), the unique key on waiting alone let it be stored — and typed — a second time.
  `CREATE TABLE baton.relayed (
     relay_key text PRIMARY KEY,
     conversation text NOT NULL,
     at timestamptz NOT NULL DEFAULT now()
   );
   INSERT INTO baton.relayed (relay_key, conversation) SELECT relay_key, conversation FROM baton.waiting WHERE relay_key IS NOT NULL;`,
  // 3: the state's version, one more at every write of it: a turn step decided on the state a daemon
  // read commits in one statement only if the stored version is still the one read (turn-step.ts).
  `ALTER TABLE baton.conversations ADD COLUMN version bigint NOT NULL DEFAULT 0;`,
];

/** Create or migrate the schema; returns the version found before. */
export async function migrate(db: Db): Promise<number> {
  return tx(db, async (c) => {
    await c.query(`SELECT pg_advisory_xact_lock(hashtext('baton.schema'))`);
    await c.query('CREATE SCHEMA IF NOT EXISTS baton');
    await c.query('CREATE TABLE IF NOT EXISTS baton.meta (version integer NOT NULL)');
    const r = await c.query<{ version: number }>('SELECT version FROM baton.meta');
    const found = r.rows[0]?.version ?? 0;
    if (found > SCHEMA_VERSION)
      throw new Error(
        `the database's baton schema is version ${found}, newer than this baton knows (${SCHEMA_VERSION}): upgrade baton`,
      );
    for (let v = found; v < SCHEMA_VERSION; v++) await c.query(MIGRATIONS[v]!);
    if (r.rows.length === 0) await c.query('INSERT INTO baton.meta (version) VALUES ($1)', [SCHEMA_VERSION]);
    else await c.query('UPDATE baton.meta SET version = $1', [SCHEMA_VERSION]);
    return found;
  });
}

/** The schema version in the database (0: none yet). */
export async function schemaVersion(db: Db): Promise<number> {
  const r = await db.query<{ v: number | null }>(
    `SELECT (SELECT version FROM baton.meta LIMIT 1) AS v WHERE to_regclass('baton.meta') IS NOT NULL`,
  );
  return r.rows[0]?.v ?? 0;
}
