/**
 * Control clients a killed daemon left attached. A daemon's control client (control.ts) is its child; when
 * the daemon is killed (kill -9, a crash) the client lives on with its parent gone, and tmux does not always
 * see its stdin close: in this project's crash tests such a client stayed attached to the end, and after
 * `kill-server` the server waited for it instead of exiting, so the next session started joined a dying
 * server. The next control client that attaches ends them: a tmux process with baton's own control command
 * line whose parent is gone (it was re-parented to init, or to the systemd that ran the daemon as a service).
 * Where /proc cannot tell (macOS) nothing is ended.
 */
import { readFileSync } from 'node:fs';
import { procStat } from '../lib/process.js';

/** How a baton control client attaches (after `-u` and the server's `-S`/`-L`): how it is recognised. */
export const CONTROL_ARGS = ['-C', 'attach-session', '-f', 'ignore-size,no-output'] as const;

export interface ClientProcess {
  ppid: number;
  /** The parent's command name (/proc/<ppid>/comm). */
  parent: string;
  argv: string[];
}

const isOurs = (argv: readonly string[]): boolean =>
  /(^|\/)tmux$/.test(argv[0] ?? '') &&
  argv.length > CONTROL_ARGS.length &&
  CONTROL_ARGS.every((a, i) => argv[argv.length - CONTROL_ARGS.length + i] === a);

/**
 * The client pids in `listing` (list-clients lines `#{client_pid} #{client_control_mode}`) that are baton
 * control clients whose daemon is gone; `self` (the asking client) never is one.
 */
export function orphans(listing: string, self: number | undefined, look: (pid: number) => ClientProcess | null) {
  const found: number[] = [];
  for (const line of listing.split('\n')) {
    const [pid, control] = line.trim().split(' ').map(Number);
    if (!pid || control !== 1 || pid === self) continue;
    const p = look(pid);
    if (p && isOurs(p.argv) && (p.ppid === 1 || p.parent === 'systemd')) found.push(pid);
  }
  return found;
}

/** What /proc says of `pid`, or null when it cannot be read. */
function processOf(pid: number): ClientProcess | null {
  const stat = procStat(pid);
  if (!stat) return null;
  try {
    const ppid = Number(stat[1]);
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    return { ppid, parent: readFileSync(`/proc/${ppid}/comm`, 'utf8').trim(), argv };
  } catch {
    return null;
  }
}

type Run = (args: readonly string[], timeoutMs: number) => Promise<{ ok: boolean; output: string }>;

/** End the orphaned control clients attached to the server `run` reaches; the pids it ended. */
export async function endOrphans(run: Run, self: number | undefined, timeoutMs: number): Promise<number[]> {
  const r = await run(['list-clients', '-F', '#{client_pid} #{client_control_mode}'], timeoutMs);
  if (!r.ok) return [];
  const ended = orphans(r.output, self, processOf);
  for (const pid of ended) {
    try {
      process.kill(pid, 'SIGKILL'); // nobody reads it: nothing of its own to finish
    } catch {
      /* gone meanwhile, or ended by another daemon attaching at the same moment */
    }
  }
  return ended;
}
