/**
 * The connection side of the PostgreSQL bus. node-postgres (`pg`): a Pool for the short transactions of
 * turn steps (each one checked out, used, given back), and dedicated Clients where a session matters — the
 * lease's advisory lock and LISTEN. Chosen over `postgres` (porsager) because a session is explicit here:
 * the lease must know exactly which connection holds its lock, and a LISTEN connection that drops must be
 * noticed (an 'error'/'end' event), not silently re-made, since a re-scan has to follow it.
 *
 * The URL's password is never logged: `redact` is the only form of the URL that reaches a message.
 */
import type pg from 'pg';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';

/**
 * node-postgres, loaded the first time a PostgreSQL bus opens a connection: every daemon and command
 * imports this module through bus/open.ts, and pg alone adds ~15 MB to a process (measured), which a
 * files-bus daemon never needs (its idle RSS had grown from 70 to 83 MB).
 */
let pgLib: typeof pg | null = null;
const lib = (): typeof pg => (pgLib ??= createRequire(import.meta.url)('pg') as typeof pg);

export type Db = pg.Pool;
export type Conn = pg.PoolClient | pg.Client;

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
 * Every session: TCP keepalive (a machine cut off is noticed by the kernel, not only by a query), a
 * transaction left open by a machine that was cut off mid-step is ended by the server after 15 s, so its
 * row lock on the conversation cannot hold the other machines' turns for longer, and no statement runs
 * past 30 s.
 */
const SESSION = {
  keepAlive: true,
  keepAliveInitialDelayMillis: 5000,
  application_name: 'baton',
  connectionTimeoutMillis: 10_000,
  // No statement waits for ever (a lock held by a session that hangs): it fails, and the caller retries.
  options: '-c idle_in_transaction_session_timeout=15000 -c statement_timeout=30000',
};

/**
 * A pool that lets the process exit when idle (a CLI command opens one and never closes it).
 * `durable: false`: commits do not wait for the WAL to reach the disk (synchronous_commit off) — for the
 * event log, a record rather than the truth (SPEC §7): a crash of the database may lose its last events,
 * never a message or a state. Turn steps, stamps and relays always use a durable pool.
 *
 * One pool per (URL, durability) per process: a daemon serving many conversations (`baton daemon A B C`)
 * shares its connections between them instead of opening 6 per conversation — at 100 conversations over
 * 3 machines that was over a thousand server processes (each a backend of its own), and PostgreSQL's
 * default max_connections is 100. A pool opens connections only as they are needed, so a command that
 * makes one query still holds one.
 */
const pools = new Map<string, Db>();

export function openPool(url: string, { durable = true } = {}): Db {
  const key = `${durable ? 'd' : 'n'} ${url}`;
  const known = pools.get(key);
  if (known && !(known as { ending?: boolean }).ending) return known; // one ended (by a test) is made again
  const options = `${SESSION.options}${durable ? '' : ' -c synchronous_commit=off'}`;
  const pool = new (lib().Pool)({ connectionString: url, max: durable ? 8 : 3, allowExitOnIdle: true, ...SESSION, options });
  // An idle connection that breaks (the database restarted) must not crash the daemon: the next query reconnects.
  pool.on('error', () => {});
  pools.set(key, pool);
  return pool;
}

export function client(url: string): pg.Client {
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
 * What a notification on the channel asks of a daemon. `messages@HOST` (a message stored for that
 * machine's agent) wakes only that machine's daemon, `moved@HOST` (a turn step of HOST's daemon, with
 * the state it saved when that fits) every other machine's, `messages` (the state changed) every daemon,
 * `requests` a look at the requests; `events` and `reply` are for readers and wake no daemon. Waking every daemon on every event cost each
 * one a full pass per event (two or three per delivery, on every machine); a daemon's own turn step
 * tells it nothing it does not know.
 */
export function hintOf(payload: string, host: string): { kind: 'messages'; row?: WaitingRowHint; moved?: { version: string; state: unknown } } | { kind: 'requests' } | null {
  if (payload === 'requests') return { kind: 'requests' };
  if (payload === 'messages' || payload === `messages@${host}`) return { kind: 'messages' };
  if (payload.startsWith(`messages@${host}#`)) return { kind: 'messages', row: rowOf(payload.slice(`messages@${host}#`.length)) };
  if (payload.startsWith('moved@') && !payload.startsWith(`moved@${host}#`) && payload !== `moved@${host}`) return { kind: 'messages', moved: movedOf(payload) };
  return null;
}

/**
 * The state another machine's turn step saved, as its notification carries it (`moved@HOST#VERSION
 * {state}`): that step deleted a row only from a direction delivered on that machine, so this machine's
 * view keeps its rows and needs only the new state — no read.
 */
function movedOf(payload: string): { version: string; state: unknown } | undefined {
  const m = /^moved@[^#]*#(\d+) /.exec(payload);
  if (!m) return undefined;
  try {
    return { version: m[1]!, state: JSON.parse(payload.slice(m[0].length)) };
  } catch {
    return undefined;
  }
}

/** The state as a turn step's NOTIFY carries it, or null when it would not fit. */
export const stateHint = (state: unknown): string | null => {
  const json = JSON.stringify(state);
  return Buffer.byteLength(json) < 7800 ? json : null;
};

/**
 * The row a stored message's notification carries (`messages@HOST#SEQ {direction, file, body}`), so its
 * machine's daemon need not read the queue to see it (~0.9 ms of a delivery across machines, traced).
 * Only a row that fits a notification (8000 bytes) is carried; a larger one is read. The turn step
 * still deletes the row only if its body is the one carried, so a wrong hint delivers nothing.
 */
export interface WaitingRowHint {
  seq: string;
  direction: string;
  file: string | null;
  body: string;
}

function rowOf(text: string): WaitingRowHint | undefined {
  const sp = text.indexOf(' ');
  try {
    const r = JSON.parse(text.slice(sp + 1)) as Partial<WaitingRowHint>;
    const seq = text.slice(0, sp);
    if (!/^\d+$/.test(seq) || typeof r.direction !== 'string' || typeof r.body !== 'string' || (r.file !== null && typeof r.file !== 'string')) return undefined;
    return { seq, direction: r.direction, file: r.file, body: r.body };
  } catch {
    return undefined;
  }
}

/** What a stored message's NOTIFY carries after `messages@HOST#SEQ `, or null when it would not fit. */
export const rowHint = (direction: string, file: string | null, body: string): string | null => {
  const json = JSON.stringify({ direction, file, body });
  return Buffer.byteLength(json) < 7800 ? json : null;
};

/** The payload that wakes the daemon of `host` only. */
export const messagesFor = (host: string): string => `messages@${host}`;

/** The payload of a turn step by the daemon of `host`: the turn moved. */
export const movedBy = (host: string): string => `moved@${host}`;

/** The NOTIFY channel of one conversation (channel names are identifiers: at most 63 bytes). */
export const channelOf = (conversation: string): string => `baton_${createHash('sha1').update(conversation).digest('hex').slice(0, 16)}`;

/** Is this error the database being away (connection refused, reset, terminated), not a bad query? */
export function isConnectionError(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  // 53300: too many connections (a crowded server refuses new sessions for a while); 57014: a statement
  // cancelled (statement_timeout: something held it past 30 s) — both worth a retry, not an exit.
  if (e?.code && /^(ECONNREFUSED|ECONNRESET|ECONNABORTED|EPIPE|ETIMEDOUT|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|EADDRNOTAVAIL|53300|57014|57P01|57P02|57P03|08\w{3})$/.test(e.code)) return true;
  // pg's own words for a session that broke or never came (the pool's: "timeout exceeded when trying to connect").
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|not queryable/i.test(e?.message ?? '');
}
