/**
 * Which machine daemon serves a shell's conversations: one per user and machine name (BATON_HOST, else the
 * hostname), each with its state folder (`$XDG_STATE_HOME/baton/`, others in `hosts/<name>/`), so two
 * BATON_HOSTs on one box get two daemons (one served both as the first, and was refused). `ls` reads them all.
 */
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { homedir, hostname } from 'node:os';
import { join, resolve } from 'node:path';

/** `$XDG_STATE_HOME/baton`, else `~/.local/state/baton`: every machine name's state folder is in it. */
export function stateRoot(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_STATE_HOME?.startsWith('/') ? env.XDG_STATE_HOME : null;
  return resolve(base ?? join(homedir(), '.local', 'state'), 'baton');
}

const HOSTS = 'hosts';

/** A machine name as a folder name: itself when it is a plain one, else a hash of it. */
const folderOf = (name: string): string =>
  /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}$/.test(name)
    ? name
    : `~${createHash('sha256').update(name).digest('hex').slice(0, 16)}`;

/** The state folder of this shell's machine name (BATON_HOST, when not the hostname): registry, lock, served. */
export function stateDir(env: NodeJS.ProcessEnv = process.env): string {
  const name = env.BATON_HOST;
  return name && name !== hostname() ? join(stateRoot(env), HOSTS, folderOf(name)) : stateRoot(env);
}

/** Every machine name's state folder under `root`: the machine's own first (host null), then the others. */
export function stateDirs(root: string = stateRoot()): Array<{ host: string | null; dir: string }> {
  let names: string[] = [];
  try {
    names = readdirSync(join(root, HOSTS)).sort();
  } catch {} // none yet
  return [{ host: null, dir: root }, ...names.map((n) => ({ host: n, dir: join(root, HOSTS, n) }))];
}

/** One daemon per machine unless BATON_DAEMON=conversation asks for the former daemon per conversation. */
export const machineMode = (env: NodeJS.ProcessEnv = process.env): boolean => env.BATON_DAEMON !== 'conversation';
