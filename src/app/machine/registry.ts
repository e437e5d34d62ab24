/**
 * The machine's registry (`$XDG_STATE_HOME/baton/conversations.json`): what this user's machine daemon serves.
 * `up` adds, `down` removes; the daemon reads it every half second. Written whole and atomically under a lock.
 * A file that does not read is never written over — every change refuses (RegistryUnreadable), the daemon serves
 * on — since reading it as empty let one `up` drop every other conversation (docs/decisions/0009-…).
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Config } from '../../config/config.js';
import { isOurTemp, writeAtomic } from '../../lib/fsx.js';
import { lockDir } from '../../lib/lock-dir.js';
import { pidAlive } from '../../lib/process.js';
import { timing } from '../../lib/timing.js';

/** One conversation the machine's daemon serves. */
export interface Entry {
  /** Its config file, or null for the built-in default config of `home`. */
  config: string | null;
  /** The folder the config was found for (its baseDir). */
  home: string;
  message_dir: string;
  bus: 'files' | 'postgres';
  /** The tmux server its sessions run on (socket path, as `up` recorded it): the daemon types there. */
  tmux: string | null;
  added_at: string;
  /** Its message folder's identity (folderIdOf): a project moved away is found again by it (`up`, `status`). */
  folder_id?: string;
  /** The machine name (BATON_HOST) its `up` ran as, when not the machine's own: `ls` reads it as that machine. */
  host?: string;
}

interface Registry {
  version: 1;
  conversations: Entry[];
  /** Conversations with a daemon of their own (up/own-daemon.ts): listed by `ls`, never served by the machine's. */
  own_daemons: Entry[];
}

/** The state folder of this shell's machine name (identity.ts). */
export { stateDir } from './identity.js';

export const registryFile = (dir: string): string => join(dir, 'conversations.json');

/** What makes an entry this conversation: its message folder on the files bus, its config file otherwise. */
export function keyOf(e: Pick<Entry, 'config' | 'home' | 'message_dir' | 'bus'>): string {
  return e.bus === 'files' ? `files ${e.message_dir}` : `postgres ${e.config ?? e.home}`;
}

export function entryOf(config: Config, tmux: string | null, now = new Date()): Entry {
  const where = { config: config.file, home: config.baseDir, message_dir: config.messageDir, bus: config.bus.kind };
  const host = config.host && config.host !== hostname() ? { host: config.host } : {};
  return { ...where, tmux, added_at: now.toISOString(), ...host };
}

/** A folder's `dev:ino:born` now (an inode alone is reused by the next folder made: bus/anchor.ts), or undefined. */
export function folderIdOf(path: string): string | undefined {
  try {
    const st = statSync(path);
    return `${st.dev}:${st.ino}:${st.birthtimeMs}`;
  } catch {
    return undefined;
  }
}

/** `e` is the conversation whose message folder is `id`, moved away from the path it was added with. */
export const movedFrom = (e: Entry, id: string | undefined): boolean =>
  id !== undefined && e.folder_id === id && folderIdOf(e.message_dir) !== id;

export const isEntry = (e: unknown): e is Entry => {
  const o = e as Partial<Entry> | null;
  return (
    typeof o?.home === 'string' &&
    typeof o.message_dir === 'string' &&
    (o.config === null || typeof o.config === 'string') &&
    (o.bus === 'files' || o.bus === 'postgres')
  );
};

export type Read = { ok: true; registry: Registry } | { ok: false; registry: Registry; problem: string };

/** A change asked of a registry that does not read: refused, so no conversation it lists is dropped. */
export class RegistryUnreadable extends Error {
  override name = 'RegistryUnreadable';
  constructor(readonly problem: string) {
    super(unreadableLine(problem));
  }
}

/** What `up`, `down`, `ls`, `status` and the daemon say of a registry that does not read: the file, and the fix. */
export const unreadableLine = (problem: string): string =>
  `the machine's registry ${problem}; baton writes nothing to it until it reads again, so no conversation it ` +
  `lists is dropped — the machine's daemon serves what it served, "baton up" and "baton down" refuse: fix it ` +
  'by hand (it is JSON)';

/** The registry as it is on disk; none yet is an empty one. Never throws. */
export function readRegistry(dir: string): Read {
  const empty: Registry = { version: 1, conversations: [], own_daemons: [] };
  let text: string;
  try {
    text = readFileSync(registryFile(dir), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { ok: true, registry: empty };
    return { ok: false, registry: empty, problem: `cannot read ${registryFile(dir)}: ${(err as Error).message}` };
  }
  try {
    const parsed = JSON.parse(text) as Partial<Registry>;
    if (!Array.isArray(parsed.conversations)) throw new Error('no "conversations" list');
    const own = Array.isArray(parsed.own_daemons) ? parsed.own_daemons.filter(isEntry) : [];
    const registry: Registry = { version: 1, conversations: parsed.conversations.filter(isEntry), own_daemons: own };
    return { ok: true, registry };
  } catch (err) {
    // One line: JSON.parse quotes the text around the fault, newlines and all.
    const why = (err as Error).message.replace(/\s+/g, ' ');
    return { ok: false, registry: empty, problem: `${registryFile(dir)} does not parse: ${why}` };
  }
}

/** A writer killed mid-write left its temp file (`.baton-<pid>-….tmp`): removed once its pid is gone. */
function sweepDeadTemps(dir: string): void {
  for (const name of readdirSync(dir)) {
    const pid = Number(/^\.baton-(\d+)-/.exec(name)?.[1]);
    if (isOurTemp(name) && pid && !pidAlive(pid)) rmSync(join(dir, name), { force: true });
  }
}

type Lists = Omit<Registry, 'version'>;

/** Change the registry under its lock; `change` returns the new lists. */
async function edit(dir: string, change: (lists: Lists) => Lists): Promise<Lists> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const release = await lockDir(join(dir, 'registry.lock'), {
    stale: timing.registryLockStaleMs,
    retries: { count: 100, delayMs: 100 },
    onCompromised: () => {}, // held for one read and write: taken over only once this edit is long stale
  });
  try {
    sweepDeadTemps(dir);
    const read = readRegistry(dir);
    if (!read.ok) throw new RegistryUnreadable(read.problem);
    const lists = change(read.registry);
    // No empty own_daemons list written: the file stays as it was for a machine that never had one.
    const registry = {
      version: 1,
      conversations: lists.conversations,
      ...(lists.own_daemons.length ? { own_daemons: lists.own_daemons } : {}),
    };
    await writeAtomic(registryFile(dir), `${JSON.stringify(registry, null, 2)}\n`);
    return lists;
  } finally {
    await release().catch(() => {});
  }
}

/** Add (or refresh) it for the machine's daemon; its entries from before it moved, or as its own daemon's, go. */
export async function register(dir: string, entry: Entry): Promise<Entry[]> {
  const id = entry.folder_id;
  const other = (e: Entry) => keyOf(e) !== keyOf(entry) && !movedFrom(e, id);
  const lists = await edit(dir, (l) => ({
    conversations: [...l.conversations.filter(other), entry],
    own_daemons: l.own_daemons.filter(other),
  }));
  return lists.conversations;
}

/** Remove this conversation from the machine's daemon's list; true when it was there. */
export async function unregister(dir: string, key: string): Promise<boolean> {
  let found = false;
  await edit(dir, (l) => {
    found = l.conversations.some((e) => keyOf(e) === key);
    return { ...l, conversations: l.conversations.filter((e) => keyOf(e) !== key) };
  });
  return found;
}

/** Add (or refresh) this conversation as one with a daemon of its own, which the machine's daemon leaves alone. */
export async function registerOwn(dir: string, entry: Entry): Promise<void> {
  await edit(dir, (l) => ({ ...l, own_daemons: [...l.own_daemons.filter((e) => keyOf(e) !== keyOf(entry)), entry] }));
}

/** `down`: this conversation no longer has a daemon of its own here (nothing written when it was not listed). */
export async function unregisterOwn(dir: string, key: string): Promise<void> {
  if (!readRegistry(dir).registry.own_daemons.some((e) => keyOf(e) === key)) return;
  await edit(dir, (l) => ({ ...l, own_daemons: l.own_daemons.filter((e) => keyOf(e) !== key) }));
}

/** Whether this conversation is listed; a registry that does not read throws RegistryUnreadable. */
export function isRegistered(dir: string, key: string): boolean {
  const read = readRegistry(dir);
  if (!read.ok) throw new RegistryUnreadable(read.problem);
  return read.registry.conversations.some((e) => keyOf(e) === key);
}
