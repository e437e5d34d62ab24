/** Processes by pid: alive or not, and ending a process group that outlived its terminal. */
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** Is the process alive? A zombie (killed, not yet reaped) is not. */
export function pidAlive(pid: number): boolean {
  // kill(0 or -1, 0) signals a group and succeeds: a record holding one named no process at all.
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  const stat = procStat(pid);
  return stat ? stat[0] !== 'Z' : true; // no /proc (macOS): trust kill(0)
}

/**
 * /proc/<pid>/stat's fields after the command name, which may hold spaces and ")" (the last ")" ends it):
 * [0] the state letter, [1] the parent's pid, [19] the start time. Null when it cannot be read (gone, macOS).
 */
export function procStat(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/**
 * Make sure these processes (each the leader of its own process group, as a tmux pane's first process
 * is) end: they get `graceMs` to go on their own, then SIGTERM to their whole group, then SIGKILL.
 */
export async function endGroups(pids: number[], graceMs = 2000): Promise<void> {
  const waitGone = async (ms: number) => {
    for (const until = Date.now() + ms; Date.now() < until && pids.some(pidAlive); ) await sleep(50);
  };
  await waitGone(graceMs);
  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    const left = pids.filter(pidAlive);
    if (!left.length) return;
    for (const pid of left) {
      try {
        process.kill(-pid, signal);
      } catch {
        try {
          process.kill(pid, signal);
        } catch {
          /* gone meanwhile */
        }
      }
    }
    await waitGone(graceMs);
  }
}
