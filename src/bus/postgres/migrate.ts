/**
 * baton's schema in PostgreSQL (docs/protocol.md §10: created and migrated by baton itself, versioned,
 * never by hand). Everything lives in one schema (`bus.schema`, default baton); every row names its
 * conversation, so one database holds many. `baton doctor` compares `meta.version` with SCHEMA_VERSION.
 *
 * Migration N takes the schema from version N-1 to N: `migrations/NNN-what.sql`, plain SQL with
 * `:"schema"` where the schema's name goes (as psql writes a variable identifier). A migration that
 * shipped is never edited: the next change is the next file, and SCHEMA_VERSION one more. They ship as
 * files beside this module (`npm run build` copies them into dist/), read once per process.
 *
 * Each migration runs in its own transaction under the schema's advisory lock, and records its version
 * in the same transaction: two machines starting at once migrate one after the other, each step once, and
 * a migration that fails leaves the schema at the last one that succeeded.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_BUS_SCHEMA } from '../../config/schema.js';
import { tx, type Db } from './db.js';
import { run } from './sql/bind.js';
import { sqlFor } from './sql/index.js';

export const SCHEMA_VERSION = 4;

const MIGRATIONS_DIR = new URL('./migrations/', import.meta.url);

export interface Migration {
  version: number;
  file: string;
  /** Its SQL, `:"schema"` not yet replaced. */
  sql: string;
}

let loaded: Promise<Migration[]> | null = null;

/** The migrations this baton ships, in order: exactly 1..SCHEMA_VERSION, or an error naming what is wrong. */
export function migrations(): Promise<Migration[]> {
  loaded ??= readMigrations().catch((err: unknown) => {
    loaded = null;
    throw err;
  });
  return loaded;
}

async function readMigrations(): Promise<Migration[]> {
  const dir = fileURLToPath(MIGRATIONS_DIR);
  const files = (await readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith('.sql')).sort();
  const found = files.map((file, i) => {
    const m = /^(\d{3})-[a-z0-9-]+\.sql$/.exec(file);
    if (!m || Number(m[1]) !== i + 1)
      throw new Error(`${dir}: ${file} is out of place: migrations are 001-….sql, 002-….sql, … with none missing`);
    return { version: i + 1, file };
  });
  if (found.length !== SCHEMA_VERSION)
    throw new Error(
      `${dir} holds ${found.length} schema migrations, this baton needs ${SCHEMA_VERSION}: its package is incomplete (reinstall baton)`,
    );
  return Promise.all(found.map(async (m) => ({ ...m, sql: await readFile(join(dir, m.file), 'utf8') })));
}

/** A migration's SQL for `schema`. */
export const migrationSql = (m: Migration, schema: string): string => m.sql.replaceAll(':"schema"', `"${schema}"`);

const named = (schema: string) => (schema === DEFAULT_BUS_SCHEMA ? 'baton schema' : `baton schema "${schema}"`);

/**
 * Create or migrate `schema` up to version `to` (default: this baton's); returns the version found
 * before. A schema newer than this baton knows is refused: its statements may not fit it.
 */
export async function migrate(db: Db, opts: { schema: string; to?: number }): Promise<number> {
  const { schema, to = SCHEMA_VERSION } = opts;
  const all = await migrations();
  const m = sqlFor(schema).meta;
  let before: number | null = null;
  for (;;) {
    const step = await tx(db, async (c) => {
      await run(c, m.lock, {});
      await run(c, m.createSchema, {});
      await run(c, m.createMeta, {});
      const r = await run(c, m.version, {});
      const found = r.rows[0]?.version ?? 0;
      if (found > SCHEMA_VERSION)
        throw new Error(
          `the database's ${named(schema)} is version ${found}, newer than this baton knows (${SCHEMA_VERSION}): upgrade baton`,
        );
      if (found >= to) return { found, done: true };
      await c.query(migrationSql(all[found]!, schema));
      await run(c, r.rows.length ? m.setVersion : m.insertVersion, { version: found + 1 });
      return { found, done: false };
    });
    before ??= step.found;
    if (step.done) return before;
  }
}

/** The schema version in the database (0: none yet). */
export async function schemaVersion(db: Db, schema: string): Promise<number> {
  const { meta } = sqlFor(schema);
  if (!(await run(db, meta.present, {})).rows[0]?.p) return 0;
  return (await run(db, meta.version, {})).rows[0]?.version ?? 0;
}
