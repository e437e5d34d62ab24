/**
 * Where the daemon keeps the agents' open dialogs (daemon/dialogs.ts) for others to see: `.hooks/dialogs.json`
 * beside the agents' hook states (spool.ts), read by `baton status`, `baton answer --list` and the dashboard;
 * and, per agent, the flag its tool-ran hook looks for (spool.ts: dialogFlag) — present only while a dialog
 * is open, so that hook costs the agent a shell's test, not a node start, the rest of the time.
 */
import { join } from 'node:path';
import { unlink, writeFile } from 'node:fs/promises';
import type { Blocked } from '../../core/blocked.js';
import { makeDirBelow, makeDirBelowSync, writeAtomic } from '../../lib/fsx.js';
import { readOwnFileSync } from '../../lib/own-file.js';
import { dialogFlag, spoolDir, spoolRoot } from './spool.js';

/** An agent's open dialog as status and the dashboard show it, as a block names it; `source`: who said so first. */
export type AgentDialog = Omit<Blocked, 'agent'> & { source: 'hook' | 'screen' };

export interface DialogStore {
  /** Every open dialog, by agent (an agent with none is not in it). */
  save(dialogs: Record<string, AgentDialog>): Promise<void>;
  /** The agent's tool-ran hook runs from now on (open) or no longer. */
  flag(agent: string, open: boolean): Promise<void>;
}

const file = (messageDir: string) => join(spoolRoot(messageDir), 'dialogs.json');

export class DialogFiles implements DialogStore {
  constructor(private readonly messageDir: string) {}

  async save(dialogs: Record<string, AgentDialog>): Promise<void> {
    makeDirBelowSync(this.messageDir, spoolRoot(this.messageDir)); // never the message folder itself (bus/anchor.ts)
    await writeAtomic(file(this.messageDir), `${JSON.stringify(dialogs, null, 2)}\n`);
  }

  async flag(agent: string, open: boolean): Promise<void> {
    const dir = spoolDir(this.messageDir, agent);
    if (!open) return unlink(dialogFlag(dir)).catch(() => {});
    await makeDirBelow(this.messageDir, dir);
    // Created new (`wx`: never through a link an agent left in its place); one there already is the flag.
    await writeFile(dialogFlag(dir), '', { flag: 'wx' }).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw err;
    });
  }
}

/** The agents' open dialogs as this machine's daemon last saw them (none when it never saw one). */
export function readDialogs(messageDir: string): Record<string, AgentDialog> {
  // `.hooks/` is writable by the agents: read as any file there is (lib/own-file.ts), never trusted to parse.
  const data = readOwnFileSync(file(messageDir), 1 << 20);
  try {
    const v: unknown = data ? JSON.parse(data.toString('utf8')) : {};
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, AgentDialog>) : {};
  } catch {
    return {};
  }
}
