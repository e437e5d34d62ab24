/**
 * Named parameters for node-postgres (`:name` → `$n`, once per statement): the turn step had fourteen `$n`
 * matched by position. Not a name: `::type`, anything quoted, a `--` comment. Every name needs a value and every
 * value a name. run() encodes every parameter and decodes every column (codec.ts). Each statement is prepared once
 * per session: unnamed, parsing and planning took 0.45 of the relay's 0.63 ms server time.
 * docs/decisions/0005-postgres-round-trips.md.
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { defaultParser, type Conn, type Db } from '../db.js';
import { decodeJson, decodeText, encodeParam } from './codec.js';

/** A statement with named parameters, compiled: P the values it takes, R the row it returns. */
export interface Statement<P extends object, R extends pg.QueryResultRow = pg.QueryResultRow> {
  /** What it is called in code (`turns.cas`): for error messages. */
  readonly name: string;
  /** The text sent, with `$1 … $n`. */
  readonly text: string;
  /** `$k` is the value named `names[k - 1]`. */
  readonly names: readonly (keyof P & string)[];
  /** Its name as a prepared statement: from its text, so two schemas' statements never share one. */
  readonly prepared: string;
  /** Carries R for `run()`'s result type; never set. */
  readonly row?: R;
}

/** Anything that runs a query: a pool, or a session (a pool's client, a dedicated one). */
export type Queryable = Db | Conn;

const TOKEN = /'(?:[^']|'')*'|"(?:[^"]|"")*"|--[^\n]*|(?<![:\w$]):([A-Za-z_]\w*)/g;

export function statement<P extends object, R extends pg.QueryResultRow = pg.QueryResultRow>(
  name: string,
  source: string,
): Statement<P, R> {
  const names: string[] = [];
  const text = source.replace(TOKEN, (token, param: string | undefined) => {
    if (param === undefined) return token;
    const at = names.indexOf(param);
    return `$${at < 0 ? names.push(param) : at + 1}`;
  });
  if (/(?<![\w$])\$\d/.test(source.replace(TOKEN, '')))
    throw new Error(`${name}: a positional $n in a named statement`);
  const prepared = `baton_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
  return { name, text, names: names as (keyof P & string)[], prepared };
}

/** The values array of `s` for `params`, in its `$n` order. */
export function bind<P extends object>(s: Statement<P, pg.QueryResultRow>, params: P): unknown[] {
  const given = params as Record<string, unknown>;
  for (const key of Object.keys(given))
    if (!(s.names as readonly string[]).includes(key)) throw new Error(`${s.name}: no :${key} in the statement`);
  return s.names.map((n) => {
    const v = given[n];
    if (v === undefined) throw new Error(`${s.name}: no value for :${n}`);
    return encodeParam(v);
  });
}

/** The type OIDs read as text (text, varchar, char, name) and as JSON (json, jsonb): decoded (codec.ts). */
const TEXT_TYPES = new Set([25, 1043, 1042, 19]);
const JSON_TYPES = new Set([114, 3802]);
const parseJson = (value: string): unknown => JSON.parse(decodeJson(value));

/** How run() reads a column: text and JSON decoded, every other type as node-postgres reads it. */
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (format !== 'binary' && TEXT_TYPES.has(oid)) return decodeText;
    if (format !== 'binary' && JSON_TYPES.has(oid)) return parseJson;
    return defaultParser(oid, format);
  }) as pg.CustomTypesConfig['getTypeParser'],
};

/** Run `s` with `params` on `c`. */
export function run<P extends object, R extends pg.QueryResultRow>(
  c: Queryable,
  s: Statement<P, R>,
  params: P,
): Promise<pg.QueryResult<R>> {
  return c.query<R>({ name: s.prepared, text: s.text, values: bind(s, params), types });
}

/** A statement that takes no values. */
export const plain = <R extends pg.QueryResultRow = pg.QueryResultRow>(name: string, source: string) =>
  statement<Record<string, never>, R>(name, source);
