/**
 * Where this conversation's daemon can be watched: `baton attach daemon` (or `watcher`, its session's older
 * name). The daemon is, in this order, the conversation's own in its `watcher` session (BATON_DAEMON=
 * conversation), the machine's in `baton-daemon` (or `baton-daemon-<hash>`), or — a service, or started from
 * another tmux server — in no session this server has.
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

/**
 * The daemon's session among `sessions` (name → the tag of what started it: a message folder, or the machine's
 * state folder for its daemon). `machinePid`: the machine's daemon's pid when one runs.
 */
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
