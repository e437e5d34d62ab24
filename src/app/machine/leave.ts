/**
 * `baton down` and `up --fresh` with the machine's daemon (join.ts): this conversation leaves the registry and
 * the daemon lets go of it (stops serving it, releases its lease) while it serves every other one on.
 */
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Liveness } from '../../bus/bus.js';
import type { Config } from '../../config/config.js';
import type { RunRecord } from '../../config/run-record.js';
import { machineDaemon } from './daemon-lock.js';
import { machineMode, stateDirs } from './identity.js';
import { entryOf, keyOf, readRegistry, RegistryUnreadable, stateDir, unregister } from './registry.js';
import { readServed } from './served.js';

/** `exited`: it served only this one and has exited since; `others`: how many it still serves (null: unknown). */
export type Left =
  | { left: false }
  | { left: true; pid: number | null; released: boolean; exited: boolean; others: number | null; stays?: boolean };

/** What `down` says of the machine's daemon, and what became of it: else nobody could tell whether it still ran. */
export function leftLabel(l: Left & { left: true }): string {
  const place = `its place in the machine's daemon (pid ${l.pid ?? '-'})`;
  if (l.exited) return `${place}; it had nothing else to serve and exited`;
  if (l.others === null) return place;
  if (l.others > 0) return `${place}; it still serves ${l.others} other conversation${l.others === 1 ? '' : 's'}`;
  return l.stays
    ? `${place}; it has nothing else to serve and stays running (started to stay: baton service)`
    : `${place}; it has nothing else to serve and is exiting`;
}

/** How many conversations but `key` the daemon `pid` serves now (served.json), else the registry lists. */
function othersServed(dir: string, key: string, pid: number | null): number | null {
  const served = readServed(dir);
  if (served && served.pid === pid) return served.serving.filter((k) => k !== key).length;
  const read = readRegistry(dir);
  return read.ok ? read.registry.conversations.length : null;
}

/** Released: what became of the daemon (exited, or serving how many others). */
async function released(dir: string, key: string, pid: number | null): Promise<Left> {
  const exited = await exitWhenIdle(dir);
  const stays = !exited && Boolean(machineDaemon(dir)?.stay);
  return { left: true, pid, released: true, exited, others: exited ? 0 : othersServed(dir, key, pid), stays };
}

/** Take it out of the registry, wait (up to 10 s) for the daemon to let go; not registered: nothing done. */
export async function leaveMachineDaemon(config: Config, bus: Liveness): Promise<Left> {
  const dir = stateDir();
  const key = keyOf(entryOf(config, null));
  const pid = (await bus.daemon()).pid;
  if (!listed(dir, key, pid)) return { left: false };
  await unregister(dir, key);
  for (let i = 0; i < 100; i++) {
    const d = await bus.daemon();
    if (!d.running || d.pid !== pid) return released(dir, key, pid);
    await sleep(100);
  }
  return { left: true, pid, released: false, exited: false, others: null };
}

export const recordKey = (record: RunRecord): string =>
  keyOf({ config: record.config, home: dirname(record.config), message_dir: record.message_dir, bus: record.bus });

/** `down` of a config gone with its run record (project moved or removed: skipped): found by its path. */
export function leaveByConfigFile(file: string): Promise<Left> {
  const read = readRegistry(stateDir());
  const entry = read.ok ? read.registry.conversations.find((e) => e.config === file) : undefined;
  return entry ? leaveByKey(keyOf(entry), null) : Promise.resolve({ left: false });
}

/**
 * Take `key` out of the registry and wait for the daemon to let go of it (served.json says so): `down` with a
 * config that does not load, found by its run record (recordKey; `daemon`: the record's pid).
 */
export async function leaveByKey(key: string, daemon: number | null): Promise<Left> {
  const dir = stateDir();
  if (!listed(dir, key, daemon)) return { left: false };
  const pid = machineDaemon(dir)?.pid ?? null;
  await unregister(dir, key);
  for (let i = 0; i < 100; i++) {
    const served = readServed(dir);
    if (!machineDaemon(dir) || served?.pid !== pid || !served.serving.includes(key)) return released(dir, key, pid);
    await sleep(100);
  }
  return { left: true, pid, released: false, exited: false, others: null };
}

/**
 * Whether the registry lists it (`daemon`: the pid serving it). One that does not read throws when the machine's
 * daemon serves it or would, rather than say "not registered" and leave the daemon serving it.
 */
function listed(dir: string, key: string, daemon: number | null): boolean {
  const read = readRegistry(dir);
  if (read.ok) return read.registry.conversations.some((e) => keyOf(e) === key);
  const served = daemon !== null && machineDaemon(dir)?.pid === daemon;
  if (served || machineMode()) throw new RegistryUnreadable(read.problem);
  return false;
}

/** A machine daemon's pid, of any machine name here: never signalled for one conversation (it serves others). */
export const isMachineDaemon = (pid: number): boolean => stateDirs().some(({ dir }) => machineDaemon(dir)?.pid === pid);

/** The last conversation left: the daemon (not started to stay) exits; wait for it, so `down` leaves nothing. */
async function exitWhenIdle(dir: string): Promise<boolean> {
  const read = readRegistry(dir);
  if (!read.ok || read.registry.conversations.length) return false;
  for (let i = 0; i < 50; i++) {
    const h = machineDaemon(dir);
    if (!h) return true;
    if (h.stay) return false;
    await sleep(100);
  }
  return false;
}
