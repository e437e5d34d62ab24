/**
 * Database errors are one line a person can act on (docs/protocol.md §10), against real PostgreSQL servers
 * that ask for a password (scram-sha-256), one of them for TLS only: no password (every command that opens
 * the database), a wrong one, a database or role missing, TLS required, unreachable, a server that never
 * answers. Each used to be a stack trace — `Error: SASL: SCRAM-SERVER-FIRST-MESSAGE: client password must be a
 * string at …/pg-pool/index.js:45:11` — and the missing password left the command hanging.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { machinesConfig, useMachines } from '../helpers/machines.js';
import { freePort, usePostgres } from '../helpers/postgres.js';

const PASSWORD = 'pw-s3cret';
const server = usePostgres({ password: PASSWORD });
const tls = usePostgres({ password: PASSWORD, tls: true });
const machine = useMachines();
let n = 0;

/** alpha's project with the database at `url` (claude2 runs on beta: a post for it goes to the database). */
const alpha = (url: string) => machine('alpha', machinesConfig(url, `errors-${process.pid}-${n++}`));
const at = (port: number, rest = '/postgres', user = 'postgres') => `postgres://${user}@127.0.0.1:${port}${rest}`;
const withPassword = (port: number, password: string, rest = '/postgres', user = 'postgres') =>
  `postgres://${user}:${password}@127.0.0.1:${port}${rest}`;

/** One line on stderr, exit 1, no stack, no password. */
function oneLine(r: { exitCode?: number | undefined; stderr: string; stdout: string }, what: string): string {
  const out = `${what}: ${r.stderr}${r.stdout}`;
  expect(r.exitCode, out).toBe(1);
  const lines = r.stderr.split('\n').filter((l) => l.trim());
  expect(lines, out).toHaveLength(1);
  expect(r.stderr + r.stdout, out).not.toMatch(/\n\s+at |pg-pool|node_modules/);
  expect(r.stderr + r.stdout, out).not.toContain(PASSWORD);
  expect(r.stderr + r.stdout, out).not.toContain('wrong-pw');
  return lines[0]!;
}

describe('database errors (PostgreSQL bus)', () => {
  it('no password: every command that opens the database says where to give one, at once', async () => {
    const a = alpha(at(server.port));
    const commands = [
      ['status'],
      ['doctor'],
      ['show', 'msg_0001'],
      ['log'],
      ['post', '--as', 'claude2', 'hello'],
      ['up'],
      ['down'],
      ['daemon'],
      ['end'],
    ];
    for (const args of commands) {
      const started = performance.now();
      const r = await a.cli(args, { env: { PGPASSWORD: '', PGPASSFILE: '/nonexistent' } });
      const line = oneLine(r, args.join(' '));
      expect(line, args.join(' ')).toMatch(
        new RegExp(
          `the database postgres://postgres@127\\.0\\.0\\.1:${server.port}/postgres asks for the password of user "postgres" and none was given`,
        ),
      );
      for (const where of ['PGPASSWORD', '~/.pgpass', 'BATON_BUS_URL']) expect(line).toContain(where);
      expect(performance.now() - started, `${args.join(' ')} took`).toBeLessThan(10_000);
    }
    // Given in PGPASSWORD, the same command works.
    const ok = await a.cli(['status'], { env: { PGPASSWORD: PASSWORD } });
    expect(ok.exitCode, ok.stderr).toBe(0);
  }, 120_000);

  it('a wrong password, a missing role, a missing database: what to fix, or the CREATE to run', async () => {
    const wrong = oneLine(await alpha(withPassword(server.port, 'wrong-pw')).cli(['status']), 'wrong');
    expect(wrong).toContain(
      `the database postgres://postgres:***@127.0.0.1:${server.port}/postgres refused the password of user "postgres"`,
    );
    expect(wrong).toContain('PGPASSWORD');

    const role = oneLine(
      await alpha(withPassword(server.port, PASSWORD, '/postgres', 'ghost')).cli(['status']),
      'role',
    );
    expect(role).toContain('refused the password of user "ghost" (a wrong password, or no such role)');
    expect(role).toContain(`CREATE ROLE "ghost" LOGIN PASSWORD '…';`);

    const db = oneLine(await alpha(withPassword(server.port, PASSWORD, '/nodb')).cli(['status']), 'database');
    expect(db).toBe(
      `[error] [baton] database "nodb" does not exist on 127.0.0.1:${server.port}: a superuser makes it with: CREATE DATABASE "nodb" OWNER "postgres";`,
    );
  }, 60_000);

  it('a server that takes TLS only: sslmode to add; with it (and its self-signed certificate allowed) it works', async () => {
    const plain = oneLine(await alpha(withPassword(tls.port, PASSWORD)).cli(['status']), 'tls');
    expect(plain).toContain('accepts only encrypted (TLS) connections: add ?sslmode=verify-full');
    const untrusted = oneLine(
      await alpha(withPassword(tls.port, PASSWORD, '/postgres?sslmode=verify-full')).cli(['status']),
      'untrusted',
    );
    expect(untrusted).toMatch(/its TLS certificate is not trusted \(.*\): give its CA as sslrootcert=FILE/);
    const ok = await alpha(withPassword(tls.port, PASSWORD, '/postgres?sslmode=no-verify')).cli(['status']);
    expect(ok.exitCode, ok.stderr).toBe(0);
  }, 60_000);

  describe('a server that is not there, or never answers', () => {
    let silent: Server;
    const held: Socket[] = [];
    let silentPort = 0;
    beforeAll(async () => {
      // Accepts, then says nothing: a connect that would wait for ever without its timeout.
      silent = createServer((s) => held.push(s));
      await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
      silentPort = (silent.address() as { port: number }).port;
    });
    afterAll(async () => {
      for (const s of held) s.destroy();
      await new Promise((r) => silent.close(r));
    });

    it('unreachable: connection refused, named', async () => {
      const port = await freePort();
      const line = oneLine(await alpha(withPassword(port, PASSWORD)).cli(['status']), 'unreachable');
      expect(line).toContain(
        `cannot reach the database postgres://postgres:***@127.0.0.1:${port}/postgres: connection refused`,
      );
    }, 30_000);

    it('a server that never answers: timed out after 10 s, not a hang', async () => {
      const started = performance.now();
      const line = oneLine(await alpha(withPassword(silentPort, PASSWORD)).cli(['status']), 'silent');
      expect(line).toContain('did not answer within 10 s');
      expect(performance.now() - started).toBeLessThan(20_000);
    }, 40_000);
  });
});
