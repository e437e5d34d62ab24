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
import { readdir, rm, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { HOOK_EVENTS, type HookNote } from '../../core/hook-note.js';
import { HookNoteSchema, type AgentHookState } from '../../core/receipt.js';
import { makeDirBelowSync, writeAtomic } from '../../lib/fsx.js';
import { readOwnFile, readOwnFileSync } from '../../lib/own-file.js';

export const spoolRoot = (messageDir: string): string => join(messageDir, '.hooks');
export const spoolDir = (messageDir: string, agent: string): string => join(spoolRoot(messageDir), agent);
/**
 * Present while the agent has a dialog open (daemon/dialogs.ts): its tool-ran hook runs only then. A dot-file,
 * never read as a note; an agent that makes it only makes its own hook run more often.
 */
export const dialogFlag = (spool: string): string => join(spool, '.dialog-open');
const statesFile = (messageDir: string) => join(spoolRoot(messageDir), 'agents.json');

export type Spooled = { name: string; note: HookNote } | { name: string; invalid: string };

/** The names `baton hook` gives its notes (write-note.ts): the time, its pid, a count, the event. */
const NOTE_NAME = new RegExp(`^\\d{15}-\\d+-\\d+-(?:${HOOK_EVENTS.join('|')})\\.json$`);

/**
 * A note's name as the log may show it: one `baton hook` wrote, else no name at all — a file an agent put there may be
 * named anything (terminal escapes, another file's contents), and nothing a note says reaches the log.
 */
export const noteLabel = (name: string): string =>
  NOTE_NAME.test(name) ? name : 'a file not named as baton hook names its notes';

/**
 * The notes waiting in an agent's spool, oldest first. Each is read only if it is a regular file this user
 * owns, not through a link, and at most `maxBytes` long (lib/own-file.ts says what an adversarial run found
 * without these); anything else is invalid, with a reason that never quotes what it holds.
 */
export async function readNotes(dir: string, maxBytes: number): Promise<Spooled[]> {
  const all = await readdir(dir).catch(() => [] as string[]);
  const names = all.filter((n) => n.endsWith('.json') && !n.startsWith('.')).sort();
  const out: Spooled[] = [];
  for (const name of names) {
    if (!NOTE_NAME.test(name)) {
      out.push({ name, invalid: 'not a name baton hook gives its notes' });
      continue;
    }
    const file = await readOwnFile(join(dir, name), maxBytes);
    if (!file.ok) {
      if (!file.gone) out.push({ name, invalid: file.reason });
      continue;
    }
    out.push(parseNote(name, file.data));
  }
  return out;
}

function parseNote(name: string, data: Buffer): Spooled {
  let value: unknown;
  try {
    value = JSON.parse(data.toString('utf8'));
  } catch {
    return { name, invalid: 'not JSON' }; // the parser's message would quote the file
  }
  const parsed = HookNoteSchema.safeParse(value);
  if (!parsed.success) return { name, invalid: `not a hook note (${parsed.error.issues.map(where).join(', ')})` };
  return { name, note: parsed.data };
}

/** Where a note fails the schema: its field path only (the message may quote a value). */
const where = (i: { path: PropertyKey[] }): string =>
  i.path.length
    ? i.path.map((k) => (typeof k === 'number' ? k : String(k).replace(/[^\w-]/g, '?'))).join('.')
    : 'the note';

/** Remove a note, or whatever took a note's name (a folder too: it would be listed again at every look). */
export async function removeNote(dir: string, name: string): Promise<void> {
  await unlink(join(dir, name)).catch(async (err: NodeJS.ErrnoException) => {
    if (err.code === 'EISDIR' || err.code === 'EPERM')
      await rm(join(dir, name), { recursive: true, force: true }).catch(() => {});
  });
}

export type AgentStates = Record<string, AgentHookState>;

export async function writeAgentStates(messageDir: string, states: AgentStates): Promise<void> {
  makeDirBelowSync(messageDir, spoolRoot(messageDir)); // never the message folder itself (bus/anchor.ts)
  await writeAtomic(statesFile(messageDir), `${JSON.stringify(states, null, 2)}\n`);
}

/**
 * The agents' hook-derived states (empty when no hook has reported yet). `.hooks/` is writable by the
 * agents: a FIFO put in the file's place would hold `baton status` and the dashboard, so it is read as
 * any file there is (lib/own-file.ts).
 */
export function readAgentStates(messageDir: string): AgentStates {
  const data = readOwnFileSync(statesFile(messageDir), 1 << 20);
  try {
    return data ? (JSON.parse(data.toString('utf8')) as AgentStates) : {};
  } catch {
    return {};
  }
}
