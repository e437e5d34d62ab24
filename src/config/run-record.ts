/**
 * What a daemon runs (pid, message folder, settings, how the file on disk stands against them), beside its config
 * (`.baton/<file>.<host>.json`), not in the store: a typo in config.json cannot stop `baton down` from finding
 * what it started. docs/decisions/0009-state-a-person-can-break.md.
 */
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { makeDirBelowSync } from '../lib/fsx.js';

export interface RunRecord {
  config: string;
  host: string;
  message_dir: string;
  bus: 'files' | 'postgres';
  daemon: {
    pid: number;
    started_at: string;
    /** How many conversations its process serves (`baton daemon A B`): `down` of one leaves it running. */
    serves: number;
  };
  /** sha256 of the file text the daemon last read (null: not read since it started). */
  seen: string | null;
  /** The settings it runs (reload-plan.ts runningSettings). */
  running: Record<string, unknown>;
  /** Keys of the file on disk it does not run until restarted. */
  restart: string[];
  /** Why the file on disk was not loaded (it runs its last good config), or null. */
  invalid: string | null;
  updated_at: string;
}

/** This machine's name as the config resolves it (config.ts), for a file that may not load. */
export const thisHost = (env: NodeJS.ProcessEnv = process.env): string => env.BATON_HOST || hostname();

export const recordPath = (configFile: string, host = thisHost()): string =>
  join(dirname(configFile), '.baton', `${basename(configFile)}.${host}.json`);

export const textHash = (text: string): string => createHash('sha256').update(text).digest('hex');

export const writeRunRecord = (r: RunRecord): void => writeRecord(recordPath(r.config, r.host), r);

/** Write a record atomically (a reader never sees half of it); the folder gets a .gitignore of its own. */
export function writeRecord(file: string, r: object): void {
  makeRecordDir(file);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(r, null, 2)}\n`);
  renameSync(tmp, file);
}

/** The `.baton/` folder a record `file` goes in, with its .gitignore. */
export function makeRecordDir(file: string): void {
  // `.baton/` only, beside the config: a project moved away under the daemon is not made again for it.
  makeDirBelowSync(dirname(dirname(file)), dirname(file));
  try {
    writeFileSync(join(dirname(file), '.gitignore'), '# what baton runs on this machine\n*\n', { flag: 'wx' });
  } catch {
    /* there already */
  }
}

/** The record for this config file on this machine, or null (none, or unreadable). */
export const readRunRecord = (configFile: string, host = thisHost()): RunRecord | null =>
  readRecord<RunRecord>(
    recordPath(configFile, host),
    (r) => typeof r.daemon?.pid === 'number' && typeof r.message_dir === 'string',
  );

/** A record's JSON when `valid` takes it, else null (none, unreadable, or not what it should be). */
export function readRecord<T>(file: string, valid: (r: T) => boolean): T | null {
  try {
    const r = JSON.parse(readFileSync(file, 'utf8')) as T;
    return valid(r) ? r : null;
  } catch {
    return null;
  }
}

/** The config file's text as it is now (its hash), or null when it cannot be read. */
export function diskHash(configFile: string): string | null {
  try {
    return textHash(readFileSync(configFile, 'utf8'));
  } catch {
    return null;
  }
}
