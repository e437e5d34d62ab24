/**
 * A database error as one line a person can act on (docs/protocol.md §10): what failed, at which database
 * (its URL with the password hidden), and what to do — set the password, the `CREATE` to run, the URL
 * parameter to add. node-postgres's own words were stack traces (`Error: SASL: SCRAM-SERVER-FIRST-MESSAGE:
 * client password must be a string at …/pg-pool/index.js:45:11`), and a missing password even left the
 * command hanging on its half-open connection. Every command reaches this through cli/main.ts, and a
 * daemon's log through daemon/serve.ts, by way of bus/open.ts.
 */
import { isConnectionError, lastUrl, redact } from './db.js';
import { NoDatabaseUrl } from './no-database.js';

/** What a message names: the URL's parts, as PostgreSQL's clients read them (libpq's defaults when absent). */
function partsOf(url: string | null): { user: string; database: string; where: string } {
  try {
    const u = new URL(url ?? '');
    const user = decodeURIComponent(u.username) || process.env.PGUSER || process.env.USER || 'postgres';
    const database = decodeURIComponent(u.pathname.replace(/^\//, '')) || user;
    return { user, database, where: `${u.hostname || 'localhost'}:${u.port || '5432'}` };
  } catch {
    return { user: 'postgres', database: 'postgres', where: 'its host' };
  }
}

const firstLine = (s: string): string => s.trim().split('\n')[0] ?? '';

/** Where a password is given, for a person whose database asked for one. */
const PASSWORD_HELP =
  'give it in PGPASSWORD, in ~/.pgpass (host:port:database:user:password, mode 0600) or in the URL of ' +
  'BATON_BUS_URL (postgres://user:password@host/db; keep it out of config.json)';

/** pg's words for a connection that was never answered within connectionTimeoutMillis. */
const TIMED_OUT = /timeout exceeded when trying to connect|connection timeout|timed out/i;

/**
 * One line for a database error, or null when `err` is none of those a person can act on (a bug: its
 * stack is worth showing). `url`: the database's (default: the one this process opened last).
 */
export function explainDbError(err: unknown, url: string | null = lastUrl()): string | null {
  if (err instanceof NoDatabaseUrl) return err.message;
  const e = err as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  const message = typeof e?.message === 'string' ? e.message : '';
  const { user, database, where } = partsOf(url);
  const at = url ? `the database ${redact(url)}` : 'the database';
  if (/client password must be a string|SASL: SCRAM-SERVER-FIRST-MESSAGE/.test(message))
    return `${at} asks for the password of user "${user}" and none was given: ${PASSWORD_HELP}`;
  if (code === '28P01')
    return (
      `${at} refused the password of user "${user}" (a wrong password, or no such role): ${PASSWORD_HELP}; ` +
      `a missing role is made by a superuser with: CREATE ROLE "${user}" LOGIN PASSWORD '…';`
    );
  if (code === '3D000')
    return (
      `database "${database}" does not exist on ${where}: a superuser makes it with: ` +
      `CREATE DATABASE "${database}" OWNER "${user}";`
    );
  if (code === '28000' && /role .* does not exist/.test(message))
    return `role "${user}" does not exist on ${where}: a superuser makes it with: CREATE ROLE "${user}" LOGIN PASSWORD '…';`;
  if (code === '28000' && /no encryption/.test(message))
    return (
      `${at} accepts only encrypted (TLS) connections: add ?sslmode=verify-full to the URL in bus.url or ` +
      'BATON_BUS_URL (with sslrootcert=FILE for a private CA; sslmode=no-verify encrypts without checking the server)'
    );
  if (code === '28000') return `${at} refused the connection: ${firstLine(message)} (its pg_hba.conf decides)`;
  if (/does not support SSL/i.test(message))
    return `${at} does not offer TLS: take sslmode out of the URL in bus.url or BATON_BUS_URL, or turn ssl on in the server`;
  if (/certificate|SSL routines|UNABLE_TO_VERIFY|DEPTH_ZERO_SELF_SIGNED/i.test(`${message} ${code}`))
    return (
      `${at}: its TLS certificate is not trusted (${firstLine(message)}): give its CA as sslrootcert=FILE in the ` +
      'URL (or PGSSLROOTCERT), or use sslmode=no-verify to encrypt without checking it'
    );
  if (code === 'ECONNREFUSED')
    return `cannot reach ${at}: connection refused on ${where} — is PostgreSQL running and listening there? (bus.url or BATON_BUS_URL)`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return `cannot reach ${at}: its host name is not known here (${code}) — check bus.url or BATON_BUS_URL`;
  if (TIMED_OUT.test(message) || code === 'ETIMEDOUT')
    return (
      `${at} did not answer within 10 s (${where}): a firewall, a server that hangs, or the wrong port — ` +
      'check bus.url or BATON_BUS_URL'
    );
  if (code === '53300') return `${at} has too many clients now (max_connections): try again, or raise it in the server`;
  if (/^57P0[1-3]$/.test(code)) return `${at} is shutting down or starting up (${code}): try again in a moment`;
  if (isConnectionError(err))
    return `cannot reach ${at}: ${firstLine(message) || code} — check bus.url or BATON_BUS_URL`;
  return null;
}
