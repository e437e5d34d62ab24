/**
 * The schema itself (migrate.ts): the advisory lock migrations run under, the schema and its `meta`
 * table (one row: the version), made before any migration. `s` is the schema, quoted; `name` unquoted.
 */
import { plain, statement } from './bind.js';

export const metaSql = (s: string, name: string) => ({
  /**
   * Held until the transaction ends: two machines starting at once migrate one after the other. The
   * key is the schema's own (`baton.schema` for the default, the key it always had).
   */
  lock: plain('meta.lock', `SELECT pg_advisory_xact_lock(hashtext('${name}.schema'))`),
  createSchema: plain('meta.createSchema', `CREATE SCHEMA IF NOT EXISTS ${s}`),
  createMeta: plain('meta.createMeta', `CREATE TABLE IF NOT EXISTS ${s}.meta (version integer NOT NULL)`),
  version: plain<{ version: number }>('meta.version', `SELECT version FROM ${s}.meta`),
  insertVersion: statement<{ version: number }>(
    'meta.insertVersion',
    `INSERT INTO ${s}.meta (version) VALUES (:version)`,
  ),
  setVersion: statement<{ version: number }>('meta.setVersion', `UPDATE ${s}.meta SET version = :version`),
  /**
   * Is there a meta table? Asked on its own first (doctor, ls --bus: read only, never made): a statement
   * naming a table that is not there fails as it is parsed, whatever its WHERE says.
   */
  present: plain<{ p: boolean }>('meta.present', `SELECT to_regclass('${s}.meta') IS NOT NULL AS p`),
});
