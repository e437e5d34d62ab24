/**
 * The hook spool: where an agent's hooks leave notes for the daemon of its machine —
 * `<message_dir>/.hooks/<agent>/`, one JSON file per hook run, written whole (temp file, then rename) by
 * `baton hook` (write-note.ts) with no round trip to the daemon, so an agent's prompt never waits on baton. The daemon
 * reads the notes in name order (names start with the time) and removes each once handled. A dot-folder:
 * no direction folder can take its name, and a message reader never looks in it.
 *
 * Also here: the agents' states as the daemon last derived them from their hooks (`agents.json`), for
 * `baton status` and the dashboard.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { readdir, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { HookNote } from '../../core/hook-note.js';
import { HookNoteSchema, type AgentHookState } from '../../core/receipt.js';
import { writeAtomic } from '../../lib/fsx.js';

export const spoolRoot = (messageDir: string): string => join(messageDir, '.hooks');
export const spoolDir = (messageDir: string, agent: string): string => join(spoolRoot(messageDir), agent);
const statesFile = (messageDir: string) => join(spoolRoot(messageDir), 'agents.json');

export type Spooled = { name: string; note: HookNote } | { name: string; invalid: string };

/** The notes waiting in an agent's spool, oldest first. */
export async function readNotes(dir: string): Promise<Spooled[]> {
  const names = (await readdir(dir).catch(() => [] as string[]))
    .filter((n) => n.endsWith('.json') && !n.startsWith('.'))
    .sort();
  const out: Spooled[] = [];
  for (const name of names) {
    try {
      const parsed = HookNoteSchema.safeParse(JSON.parse(await readFile(join(dir, name), 'utf8')));
      out.push(parsed.success ? { name, note: parsed.data } : { name, invalid: parsed.error.message });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
      out.push({ name, invalid: String(err) });
    }
  }
  return out;
}

export async function removeNote(dir: string, name: string): Promise<void> {
  await unlink(join(dir, name)).catch(() => {});
}

export type AgentStates = Record<string, AgentHookState>;

export async function writeAgentStates(messageDir: string, states: AgentStates): Promise<void> {
  mkdirSync(spoolRoot(messageDir), { recursive: true });
  await writeAtomic(statesFile(messageDir), `${JSON.stringify(states, null, 2)}\n`);
}

/** The agents' hook-derived states (empty when no hook has reported yet). */
export function readAgentStates(messageDir: string): AgentStates {
  try {
    return JSON.parse(readFileSync(statesFile(messageDir), 'utf8')) as AgentStates;
  } catch {
    return {};
  }
}
