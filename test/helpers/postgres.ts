/**
 * A real PostgreSQL server for a test, in a temp folder (never a mock): initdb, then pg_ctl
 * start on a free port (TCP on 127.0.0.1, socket in the folder). As root the server runs as `postgres`
 * (initdb refuses root). stop() stops only this server and removes its folder.
 */
import { execa } from 'execa';
import {
  appendFileSync,
  chmodSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';

export interface Postgres {
  url: string;
  port: number;
  dir: string;
  /** Stop it (fast shutdown), keeping its data: start() brings it back on the same port. */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  start(): Promise<void>;
  /** Stop it for good and remove its folder. */
  destroy(): Promise<void>;
}

function binDir(): string {
  if (process.env.BATON_PG_BIN) return process.env.BATON_PG_BIN;
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base)
    ? readdirSync(base)
        .filter((v) => existsSync(join(base, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (!versions.length)
    throw new Error(
      'PostgreSQL server programs not found (Debian: apt-get install postgresql); npm test installs them',
    );
  return join(base, versions[0]!, 'bin');
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

export interface PostgresOptions {
  /** Addresses to listen on (default 127.0.0.1). */
  listen?: string;
  /** A CIDR whose clients connect without a password (a test's private link). */
  trust?: string;
  /**
   * The superuser's password: TCP clients must give it (scram-sha-256, set by initdb --pwfile), as on a
   * real server. The socket in the folder stays trusted. `url` then carries it.
   */
  password?: string;
  /** With `password`: TLS only (a self-signed certificate made with openssl; a plain TCP client is refused). */
  tls?: boolean;
}

/** A self-signed certificate for the server, in its data folder (ssl_cert_file and ssl_key_file's defaults). */
async function selfSigned(data: string): Promise<void> {
  await execa('openssl', [
    'req',
    '-new',
    '-x509',
    '-days',
    '2',
    '-nodes',
    '-subj',
    '/CN=127.0.0.1',
    '-keyout',
    join(data, 'server.key'),
    '-out',
    join(data, 'server.crt'),
  ]);
  chmodSync(join(data, 'server.key'), 0o600);
}

export async function startPostgres(opts: PostgresOptions = {}): Promise<Postgres> {
  const bin = binDir();
  const dir = mkdtempSync(join(tmpdir(), 'baton-pg-'));
  const data = join(dir, 'data');
  const root = process.getuid?.() === 0;
  const ids = async (): Promise<[number, number]> => [
    Number((await execa('id', ['-u', 'postgres'])).stdout),
    Number((await execa('id', ['-g', 'postgres'])).stdout),
  ];
  if (root) {
    chmodSync(dir, 0o755);
    chownSync(dir, ...(await ids()));
  }
  const as = (cmd: string, args: string[]) =>
    root ? execa('runuser', ['-u', 'postgres', '--', cmd, ...args]) : execa(cmd, args);
  const auth = opts.password === undefined ? ['-A', 'trust'] : ['--auth-local=trust', '--auth-host=scram-sha-256'];
  if (opts.password !== undefined) {
    writeFileSync(join(dir, 'pwfile'), `${opts.password}\n`);
    if (root) chownSync(join(dir, 'pwfile'), ...(await ids()));
  }
  const pwfile = opts.password === undefined ? [] : [`--pwfile=${join(dir, 'pwfile')}`];
  await as(join(bin, 'initdb'), ['-D', data, ...auth, ...pwfile, '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  if (opts.trust) appendFileSync(join(data, 'pg_hba.conf'), `host all all ${opts.trust} trust\n`);
  if (opts.tls) {
    // Only TLS over TCP: the rules read first win, so these go before initdb's own.
    const hba = join(data, 'pg_hba.conf');
    const rules = 'local all all trust\nhostssl all all all scram-sha-256\nhostnossl all all all reject\n';
    writeFileSync(hba, rules);
    await selfSigned(data);
    if (root) {
      const [uid, gid] = await ids();
      for (const f of ['pg_hba.conf', 'server.key', 'server.crt']) chownSync(join(data, f), uid, gid);
    }
  }
  const port = await freePort();
  const listen = opts.listen ?? '127.0.0.1';
  const start = async () => {
    await as(join(bin, 'pg_ctl'), [
      '-D',
      data,
      '-l',
      join(dir, 'log'),
      '-w',
      '-t',
      '30',
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=${listen} -c max_connections=200${opts.tls ? ' -c ssl=on' : ''}`,
      'start',
    ]);
  };
  const stop = async (mode: 'fast' | 'immediate' = 'fast') => {
    await as(join(bin, 'pg_ctl'), ['-D', data, '-m', mode, '-w', 'stop']).catch(() => {});
  };
  await start();
  return {
    url: `postgres://postgres${opts.password === undefined ? '' : `:${encodeURIComponent(opts.password)}`}@127.0.0.1:${port}/postgres`,
    port,
    dir,
    start,
    stop,
    async destroy() {
      await stop('immediate');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * One server for a test file: started before its first test, destroyed after its last. The returned
 * object reads through to it (using it before beforeAll ran is an error that says so).
 */
export function usePostgres(opts: PostgresOptions = {}): Postgres {
  let pg: Postgres | null = null;
  beforeAll(async () => {
    pg = await startPostgres(opts);
  }, 120_000);
  afterAll(async () => {
    await pg?.destroy();
  });
  const live = (): Postgres => {
    if (!pg) throw new Error('PostgreSQL is not started yet (usePostgres starts it in beforeAll)');
    return pg;
  };
  return {
    get url() {
      return live().url;
    },
    get port() {
      return live().port;
    },
    get dir() {
      return live().dir;
    },
    stop: (mode) => live().stop(mode),
    start: () => live().start(),
    destroy: () => live().destroy(),
  };
}
