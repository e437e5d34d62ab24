/**
 * Which conversations the running machine's daemon may serve (app/machine/join.ts joinable): a PostgreSQL
 * conversation only when this shell's database variables are the ones the daemon started with —
 * BATON_BUS_URL overrides a config's bus.url, so another URL would serve it on the wrong database.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { databaseEnvHash } from '../../../src/app/machine/daemon-lock.js';
import { joinable } from '../../../src/app/machine/join.js';
import { DATABASE_ENV } from '../../../src/app/pane-env.js';
import type { Config } from '../../../src/config/config.js';

let dir = '';
const saved = process.env.BATON_BUS_URL;
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
  if (saved === undefined) delete process.env.BATON_BUS_URL;
  else process.env.BATON_BUS_URL = saved;
});

const files = { bus: { kind: 'files' } } as Config;
const postgres = { bus: { kind: 'postgres', url: 'postgres://h/db', conversation: 'c' } } as unknown as Config;

/** A live machine daemon (this process) that started with `url` as BATON_BUS_URL. */
function daemonWith(url: string | undefined): void {
  dir = mkdtempSync(join(tmpdir(), 'baton-join-'));
  const env = { ...process.env, BATON_BUS_URL: url };
  const holder = {
    pid: process.pid,
    host: 'h',
    started_at: '',
    stay: false,
    database_env: databaseEnvHash(DATABASE_ENV, env),
  };
  writeFileSync(join(dir, 'daemon.json'), JSON.stringify(holder));
  writeFileSync(join(dir, 'daemon.lock'), ''); // fresh: written just now
}

describe("joining the machine's daemon", () => {
  it('a files conversation always joins', () => {
    daemonWith('postgres://a/db');
    delete process.env.BATON_BUS_URL;
    expect(joinable(files, dir)).toEqual({ ok: true });
  });

  it('a PostgreSQL conversation joins with the same database variables, not with others', () => {
    daemonWith('postgres://a/db');
    process.env.BATON_BUS_URL = 'postgres://a/db';
    expect(joinable(postgres, dir)).toEqual({ ok: true });
    process.env.BATON_BUS_URL = 'postgres://b/db';
    const other = joinable(postgres, dir);
    expect(other.ok).toBe(false);
    expect(other.ok ? '' : other.why).toMatch(/other database settings/);
    delete process.env.BATON_BUS_URL; // the daemon's URL would override this config's bus.url
    expect(joinable(postgres, dir).ok).toBe(false);
  });

  it('with no machine daemon running, a PostgreSQL conversation joins (it starts one with its own settings)', () => {
    dir = mkdtempSync(join(tmpdir(), 'baton-join-'));
    process.env.BATON_BUS_URL = 'postgres://b/db';
    expect(joinable(postgres, dir)).toEqual({ ok: true });
  });
});
