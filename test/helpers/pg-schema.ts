/**
 * A PostgreSQL schema as the catalog describes it, in DDL form: tables with their columns (type, NOT
 * NULL, default) in column order, constraints (NOT NULL stays the column's, though PostgreSQL 18 lists
 * it as a constraint too), the indexes no constraint owns, sequences and what owns them — each part
 * sorted by name, the schema's own name written `:"schema"`. Two schemas made by the same migrations read
 * the same, whatever their names; the text holds no OID, no server version and no dump header (pg_dump's
 * has both and, since 17.6, a random \restrict key), so it is stable across runs and PostgreSQL versions.
 * Not meant to be run: it is what a migrated schema is compared with (test/fixtures/postgres-schema.sql).
 */
import pg from 'pg';

export async function describeSchema(url: string, schema: string): Promise<string> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    // Nothing of ours on the search path: every name the catalog prints comes qualified.
    await c.query('SET search_path TO pg_catalog');
    const q = async <R extends pg.QueryResultRow>(sql: string) => (await c.query<R>(sql, [schema])).rows;
    const columns = await q<{ rel: string; col: string; type: string; notnull: boolean; def: string | null }>(
      `SELECT t.relname AS rel, a.attname AS col, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS notnull,
              pg_get_expr(d.adbin, d.adrelid) AS def
         FROM pg_class t JOIN pg_namespace n ON n.oid = t.relnamespace
         JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum > 0 AND NOT a.attisdropped
         LEFT JOIN pg_attrdef d ON d.adrelid = t.oid AND d.adnum = a.attnum
        WHERE n.nspname = $1 AND t.relkind = 'r' ORDER BY t.relname, a.attnum`,
    );
    const constraints = await q<{ rel: string; name: string; def: string }>(
      `SELECT t.relname AS rel, k.conname AS name, pg_get_constraintdef(k.oid) AS def
         FROM pg_constraint k JOIN pg_class t ON t.oid = k.conrelid JOIN pg_namespace n ON n.oid = t.relnamespace
        WHERE n.nspname = $1 AND k.contype <> 'n' ORDER BY t.relname, k.conname`,
    );
    const indexes = await q<{ def: string }>(
      `SELECT pg_get_indexdef(i.indexrelid) AS def
         FROM pg_index i JOIN pg_class x ON x.oid = i.indexrelid JOIN pg_namespace n ON n.oid = x.relnamespace
        WHERE n.nspname = $1 AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)
        ORDER BY x.relname`,
    );
    const sequences = await q<{ name: string; type: string; rel: string | null; col: string | null }>(
      `SELECT q.relname AS name, format_type(s.seqtypid, NULL) AS type, t.relname AS rel, a.attname AS col
         FROM pg_class q JOIN pg_namespace n ON n.oid = q.relnamespace JOIN pg_sequence s ON s.seqrelid = q.oid
         LEFT JOIN pg_depend d ON d.classid = 'pg_class'::regclass AND d.objid = q.oid AND d.deptype IN ('a', 'i')
         LEFT JOIN pg_class t ON t.oid = d.refobjid
         LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = d.refobjsubid
        WHERE n.nspname = $1 AND q.relkind = 'S' ORDER BY q.relname`,
    );
    const out: string[] = [];
    for (const rel of [...new Set(columns.map((x) => x.rel))]) {
      const cols = columns
        .filter((x) => x.rel === rel)
        .map((x) => `  ${x.col} ${x.type}${x.notnull ? ' NOT NULL' : ''}${x.def === null ? '' : ` DEFAULT ${x.def}`}`);
      out.push(`CREATE TABLE :"schema".${rel} (\n${cols.join(',\n')}\n);`);
      for (const k of constraints.filter((x) => x.rel === rel))
        out.push(`ALTER TABLE :"schema".${rel} ADD CONSTRAINT ${k.name} ${k.def};`);
    }
    for (const i of indexes) out.push(`${i.def};`);
    for (const s of sequences)
      out.push(
        `CREATE SEQUENCE :"schema".${s.name} AS ${s.type}${s.rel ? ` OWNED BY :"schema".${s.rel}.${s.col}` : ''};`,
      );
    // The schema's name as the catalog prints it, quoted or not, becomes the placeholder the migrations use.
    return `${out.join('\n')}\n`.replace(new RegExp(`(?<![\\w"])(${schema}|"${schema}")\\.`, 'g'), ':"schema".');
  } finally {
    await c.end();
  }
}
