/**
 * Where `baton attach daemon` (or `watcher`) finds this conversation's daemon: its own in its `watcher` session,
 * the machine's in `baton-daemon` (or `baton-daemon-<hash>`), or (a service, another tmux server's) nowhere here.
 */
import { MACHINE_SESSION } from '../machine/join.js';
import { WATCHER_SESSION } from '../paths.js';

/** The names `baton attach` takes for the daemon (an agent of that name comes first). */
export const DAEMON_NAMES = ['daemon', WATCHER_SESSION] as const;

export type DaemonSession =
  | { kind: 'session'; name: string; machine: boolean }
  /** The machine's daemon runs (its pid) but in no session of the servers looked at. */
  | { kind: 'elsewhere'; pid: number }
  | { kind: 'none' };

/** The daemon's session among `sessions` (name → its owner tag: a message folder, or the machine's state folder). */
export function daemonSession(
  o: { messageDir: string; machineDir: string; machinePid: number | null },
  sessions: ReadonlyMap<string, { owner: string }>,
): DaemonSession {
  const named = (prefix: string, owner: string) =>
    [...sessions].find(([n, s]) => s.owner === owner && (n === prefix || n.startsWith(`${prefix}-`)))?.[0];
  const own = named(WATCHER_SESSION, o.messageDir);
  if (own) return { kind: 'session', name: own, machine: false };
  const machine = o.machinePid !== null ? named(MACHINE_SESSION, o.machineDir) : undefined;
  if (machine) return { kind: 'session', name: machine, machine: true };
  return o.machinePid !== null ? { kind: 'elsewhere', pid: o.machinePid } : { kind: 'none' };
}
