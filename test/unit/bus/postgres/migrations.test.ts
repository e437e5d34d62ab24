/**
 * The migrations baton ships (bus/postgres/migrations/*.sql, read by migrate.ts): numbered 1..SCHEMA_VERSION
 * with none missing, every table named through the `:"schema"` placeholder, and — once shipped — never
 * edited: a database migrated by an earlier baton ran the text as it was then, so a change belongs in the
 * next migration. Applying them to a real database is test/integration/migrate.test.ts.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { migrationSql, migrations, SCHEMA_VERSION } from '../../../../src/bus/postgres/migrate.js';

/** The first 16 hex digits of each shipped migration's SHA-256. A new migration adds its line. */
const SHIPPED: Record<string, string> = {
  '001-initial.sql': '21b8f0a0688836d8',
  '002-relayed.sql': '1b2a5586b6125196',
  '003-state-version.sql': '10a5cd5af9fbf9bf',
  '004-config-fingerprint.sql': '1923a5f5dd10e4b5',
};

describe('the schema migrations', () => {
  it('are numbered 1..SCHEMA_VERSION, none missing', async () => {
    const all = await migrations();
    expect(all.map((m) => m.version)).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
    expect(all.map((m) => m.file)).toEqual(Object.keys(SHIPPED));
  });

  it('a migration that shipped is never edited (add the next one instead)', async () => {
    for (const m of await migrations())
      expect(createHash('sha256').update(m.sql).digest('hex').slice(0, 16), m.file).toBe(SHIPPED[m.file]);
  });

  it('name every table through the schema placeholder, which the schema given replaces', async () => {
    for (const m of await migrations()) {
      const sql = m.sql.replace(/--[^\n]*/g, '');
      expect(sql, m.file).toContain(':"schema".');
      expect(sql, m.file).not.toMatch(/\bbaton\./);
      const made = migrationSql(m, 'team_b');
      expect(made, m.file).not.toContain(':"schema"');
      expect(made, m.file).toContain('"team_b".');
    }
  });
});
