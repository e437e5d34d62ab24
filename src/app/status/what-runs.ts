/**
 * What runs for a config file that does not load, so `down`, `status` and `doctor` still act on it (a typo
 * must not keep baton from stopping what it started): found from the daemon's run record beside the file
 * (config/run-record.ts) and the tmux sessions tagged with its message folder (sessions.ts).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { readRunRecord, type RunRecord } from '../../config/run-record.js';
import { pidAlive } from '../../lib/process.js';
import type { Tmux } from '../../terminal/tmux.js';
import { isMachineDaemon, leaveByConfigFile, leaveByKey, leftLabel, recordKey } from '../machine/leave.js';
import { stateDir, unregisterOwn } from '../machine/registry.js';
import type { Skipped } from '../machine/skipped.js';
import { skippedLine } from './status-text.js';
import { conversationTmux } from '../tmux-server.js';

export interface WhatRuns {
  /** Null: no daemon ever recorded what it runs for this file on this machine. */
  record: RunRecord | null;
  daemon: { pid: number; alive: boolean } | null;
  /** This conversation's sessions on this machine's tmux server. */
  sessions: string[];
}

/** `t`: the tmux server to look on; by default the one `baton up` recorded for the record's message folder. */
export async function whatRuns(configFile: string, tmux?: Tmux): Promise<WhatRuns> {
  const record = readRunRecord(configFile); // this machine's (each machine's daemon writes its own)
  if (!record) return { record, daemon: null, sessions: [] };
  const t = tmux ?? conversationTmux({ messageDir: record.message_dir });
  const sessions = [...(await t.sessions())].filter(([, s]) => s.owner === record.message_dir).map(([n]) => n);
  return { record, daemon: { pid: record.daemon.pid, alive: pidAlive(record.daemon.pid) }, sessions };
}

export type Stopped = { kind: 'unknown' } | { kind: 'stopped'; stopped: string[]; notes: string[] };

/** As `stopAll` (sessions.ts) does, from the run record: SIGTERM to the daemon, then its sessions. */
export async function stopWhatRuns(configFile: string, tmux?: Tmux): Promise<Stopped> {
  const runs = await whatRuns(configFile, tmux);
  const t = tmux ?? conversationTmux({ messageDir: runs.record?.message_dir ?? '' });
  if (!runs.record) {
    // No record: the project may have gone with it (moved away, removed) while the machine's daemon listed it.
    const left = await leaveByConfigFile(configFile);
    if (!left.left) return { kind: 'unknown' };
    const notes = left.released ? [] : [`the machine's daemon (pid ${left.pid}) has not let go of it yet`];
    return { kind: 'stopped', stopped: left.released ? [leftLabel(left)] : [], notes };
  }
  const stopped: string[] = [];
  const notes: string[] = [];
  const { daemon } = runs.record;
  // Served by the machine's daemon: it lets go of this conversation and serves the others on.
  const left = await leaveByKey(recordKey(runs.record), daemon.pid);
  if (left.left) {
    if (!left.released) notes.push(`the machine's daemon (pid ${left.pid}) has not let go of it yet`);
  } else if (runs.daemon?.alive && isMachineDaemon(daemon.pid)) {
    notes.push(`the machine's daemon (pid ${daemon.pid}) serves other conversations; it is left running`);
  } else if (runs.daemon?.alive && daemon.serves > 1) {
    notes.push(`the daemon (pid ${daemon.pid}) also serves other conversations; it is left running`);
  } else if (runs.daemon?.alive) {
    try {
      process.kill(daemon.pid, 'SIGTERM');
      for (let i = 0; i < 100 && pidAlive(daemon.pid); i++) await sleep(100);
      stopped.push(`daemon (pid ${daemon.pid})`);
    } catch (err) {
      notes.push(`cannot signal the daemon (pid ${daemon.pid}): ${(err as Error).message}`);
    }
  }
  for (const name of runs.sessions) if (await t.killSession(name)) stopped.push(`session ${name}`);
  // A daemon of its own stopped (or none ran): `ls` no longer lists it (up/own-daemon.ts).
  if (!left.left && !pidAlive(daemon.pid)) await unregisterOwn(stateDir(), recordKey(runs.record)).catch(() => {});
  if (left.left && left.released) stopped.push(leftLabel(left)); // last: what became of the daemon ends the line
  return { kind: 'stopped', stopped, notes };
}

/** `status` with a config that does not load: the error, then what runs — on stderr, as every config error. */
export function brokenStatus(error: string, runs: WhatRuns, skipped: Skipped | null = null): string {
  const running = Boolean(runs.daemon?.alive);
  const daemon = !runs.record
    ? 'unknown (no daemon recorded what it runs for this file on this machine)'
    : running
      ? `running (pid ${runs.daemon!.pid}) with its last good config`
      : 'not running';
  const lines = [
    `config        ${error}`,
    `daemon        ${daemon}`,
    ...skippedLine(skipped),
    `sessions      ${runs.sessions.join(', ') || '-'}`,
    'fix the config, or stop what runs with "baton down"',
  ];
  return `${lines.join('\n')}\n`;
}
