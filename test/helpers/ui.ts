/** Test helpers for `baton ui`: the real CLI as a subprocess, Debian's Chromium through playwright-core. */
import { execa, type ResultPromise } from 'execa';
import { existsSync, mkdirSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { CLI, ROOT, waitFor, type Project } from './harness.js';

export const CHROMIUM = process.env.BATON_CHROMIUM || '/usr/bin/chromium';
/** Screenshots land here, like CI artifacts (.ci/out is git-ignored and kept by the CI run). */
export const SHOTS = join(ROOT, '.ci', 'out');

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `the dashboard tests drive Chromium at ${CHROMIUM}: apt-get install -y chromium (or set BATON_CHROMIUM)`,
    );
  mkdirSync(SHOTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    // Root in CI needs --no-sandbox; the rest keeps Chromium off the (closed) network.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
}

export interface RunningUi {
  url: string;
  port: number;
  proc: ResultPromise;
  stop(): Promise<void>;
}

/** `baton ui --json` on a free port (or `port`), resolved once it printed its address. */
export async function startUi(
  p: Project,
  args: string[] = [],
  port = 0,
  env: Record<string, string> = {},
): Promise<RunningUi> {
  // --all shows every conversation and takes no --config (it runs in the project's folder all the same).
  const config = args.includes('--all') ? [] : ['--config', p.configFile];
  const proc = execa('node', [CLI, 'ui', '--port', String(port), '--json', ...args, ...config], {
    env: { ...p.env, ...env },
    reject: false,
    cwd: p.dir,
    buffer: true,
  });
  let out = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  const line = await waitFor(
    'baton ui to print its address',
    () => (proc.exitCode !== null ? 'exited' : out.includes('\n') ? out : null),
    30_000,
  );
  if (line === 'exited') {
    const r = await proc;
    throw new Error(`baton ui exited ${r.exitCode}: ${String(r.stderr)}`);
  }
  const { url, port: bound } = JSON.parse(line.split('\n')[0]!) as { url: string; port: number };
  return {
    url,
    port: bound,
    proc,
    async stop() {
      if (proc.exitCode === null) proc.kill('SIGTERM');
      await proc;
    },
  };
}

export interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A request with any headers (fetch would not let a test forge Host or leave Origin out). */
export function raw(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string; seen?: (body: string) => void } = {},
): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: opts.method ?? 'GET', headers: opts.headers ?? {} }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        body += d;
        opts.seen?.(body); // what a stream has sent so far
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** The per-run token the page carries. */
export async function pageToken(url: string): Promise<string> {
  const page = await raw(url);
  const m = /<meta name="baton-token" content="([^"]+)">/.exec(page.body);
  if (!m) throw new Error('no token in the page');
  return m[1]!;
}
