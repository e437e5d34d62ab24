/**
 * The connection side of the PostgreSQL bus, on node-postgres (`pg`): a Pool for turn steps' short transactions,
 * dedicated Clients where a session matters. Chosen over `postgres` (porsager) because a session is explicit here:
 * the lease must know which connection holds its advisory lock, and a dropped LISTEN connection must be noticed
 * ('error'/'end'), not silently re-made, since a re-scan has to follow it. `redact` is the only form of the URL
 * that reaches a message (never the password).
 */
import type pg from 'pg';
import { createRequire } from 'node:module';

/**
 * node-postgres, loaded at the first connection: every process imports this module (bus/open.ts), and pg adds
 * ~15 MB a files-bus daemon never needs (measured: its idle RSS grew from 70 to 83 MB).
 */
let pgLib: typeof pg | null = null;
const lib = (): typeof pg => (pgLib ??= createRequire(import.meta.url)('pg') as typeof pg);

export type Db = pg.Pool;
export type Conn = pg.PoolClient | pg.Client;

/** How node-postgres reads a column of this type (sql/bind.ts reads text and JSON its own way). */
export const defaultParser = (oid: number, format?: 'text' | 'binary'): ((value: string) => unknown) =>
  lib().types.getTypeParser(oid, format ?? 'text') as (value: string) => unknown;

/** The URL as a person may see it: the password replaced. */
export function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'postgres://(a URL that does not parse)';
  }
}

/**
 * Every session: TCP keepalive (a machine cut off is noticed by the kernel, not only by a query); a transaction
 * left open by a machine cut off mid-step is ended after 15 s, so its row lock cannot hold the other machines'
 * turns longer; no statement waits past 30 s (on a lock held by a session that hangs): it fails, and is retried.
 */
const SESSION = {
  keepAlive: true,
  keepAliveInitialDelayMillis: 5000,
  application_name: 'baton',
  connectionTimeoutMillis: 10_000,
  options: '-c idle_in_transaction_session_timeout=15000 -c statement_timeout=30000',
};

/**
 * A pool that lets the process exit when idle (a CLI command never closes it). `durable: false`: commits do not
 * wait for the disk — for the event log (a crash may lose its last events: a record, docs/protocol.md §7) and the
 * relay's insert, whose claimed file stays until the flushed WAL passes it (relay.ts); turn steps are durable.
 * One pool per (URL, durability) per process, shared by its conversations: 6 connections per conversation were
 * over a thousand backends at 100 conversations over 3 machines (default max_connections: 100).
 */
const pools = new Map<string, Db>();

/** The database this process opened last: what an error's message names (db-errors.ts). */
let opened: string | null = null;
export const lastUrl = (): string | null => opened;

export function openPool(url: string, { durable = true } = {}): Db {
  opened = url;
  const key = `${durable ? 'd' : 'n'} ${url}`;
  const known = pools.get(key);
  if (known && !known.ending) return known; // one ended (by a test) is made again
  const options = `${SESSION.options}${durable ? '' : ' -c synchronous_commit=off'}`;
  const pool = new (lib().Pool)({
    connectionString: url,
    max: durable ? 8 : 3,
    allowExitOnIdle: true,
    ...SESSION,
    options,
  });
  // An idle connection that breaks (the database restarted) must not crash the daemon: the next query reconnects.
  pool.on('error', () => {});
  pools.set(key, pool);
  return pool;
}

export function client(url: string): pg.Client {
  opened = url;
  return new (lib().Client)({ connectionString: url, ...SESSION });
}

const quieted = new WeakSet<pg.PoolClient>();

/** Run `fn` in one transaction: committed when it returns, rolled back when it throws. */
export async function tx<T>(db: Db, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  const c = await db.connect();
  // A session ended while checked out (pg_terminate_backend, idle_in_transaction_session_timeout after a
  // pause, the server restarting) emits 'error' on the client: without a listener that would crash the
  // daemon. The query in flight fails on its own; the broken client is destroyed, not given back.
  let broken: Error | undefined;
  const onError = (err: Error) => (broken = err);
  c.on('error', onError);
  try {
    await c.query('BEGIN');
    const out = await fn(c);
    await c.query('COMMIT');
    return out;
  } catch (err) {
    await c.query('ROLLBACK').catch(() => {});
    broken ??= isConnectionError(err) ? (err as Error) : undefined;
    throw err;
  } finally {
    c.off('error', onError);
    // A late one after release must not crash either: one quiet listener per connection, added once
    // (one per transaction piled up on a pooled connection — a leak in a daemon that runs for days).
    if (!quieted.has(c)) {
      quieted.add(c);
      c.on('error', () => {});
    }
    c.release(broken);
  }
}

/**
 * A database away, worth a retry, not an exit: node's network errors; 53300 too many connections; 57014 a
 * statement cancelled (statement_timeout, held past 30 s); 57P01–57P03 the server shutting down, crashed or
 * starting; class 08 (connection exceptions) by its prefix.
 */
const AWAY_CODES = new Set([
  ...'ECONNREFUSED ECONNRESET ECONNABORTED EPIPE ETIMEDOUT ENOTFOUND EAI_AGAIN EHOSTUNREACH ENETUNREACH'.split(' '),
  ...'EADDRNOTAVAIL 53300 57014 57P01 57P02 57P03'.split(' '),
]);

/** pg's own words for a session that broke or never came (the pool's: "timeout exceeded when trying to connect"). */
const AWAY_WORDS = [
  'connection terminated',
  'connection timeout',
  'timeout exceeded when trying to connect',
  'client has encountered a connection error',
  'not queryable',
];

/**
 * Why the server refuses to store a value, and always will — a data exception (class 22: a value it cannot hold
 * or parse, a payload too long) or a limit (class 54: a field over 1 GB, a jsonb over 256 MB, a statement too
 * deep) — or null. Retrying changes nothing (a conversation waited for ever behind one), so its message is
 * rejected with this reason. Class 53 (out of disk or memory) passes, and is retried.
 */
export function unstorable(err: unknown): string | null {
  const e = err as { code?: unknown; message?: unknown };
  if (typeof e?.code !== 'string' || !/^(22|54)[0-9A-Z]{3}$/.test(e.code)) return null;
  return `the database cannot store it: ${String(e.message)} (SQLSTATE ${e.code})`;
}

/** Is this error the database being away (connection refused, reset, terminated), not a bad query? */
export function isConnectionError(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  if (e?.code && (AWAY_CODES.has(e.code) || /^08\w{3}$/.test(e.code))) return true;
  const message = (e?.message ?? '').toLowerCase();
  return AWAY_WORDS.some((w) => message.includes(w));
}
