/**
 * Each agent's client session, kept with the conversation (the state's `sessions`) so that `baton up` after a
 * reboot, a crash or `down` can start the client with its own resume and the agent keeps its memory
 * (docs/protocol.md §12). Every hook payload of the three clients carries `session_id` (measured on Claude
 * Code 2.1.197, Codex 0.169.0, Gemini CLI 0.61.0): the same through every turn and every resume, a new one
 * after Claude Code's `/clear`. It is taken from the prompt hook, whose `transcript_path` names the file the
 * turns go to (Gemini's SessionStart after a resume names a new, empty stub instead).
 *
 * Only an ID shaped like the clients' own (a UUID: v4 for Claude Code and Gemini CLI, v7 for Codex) is kept:
 * the hook note is the agent's to write, and the ID goes onto a command line — and Claude Code takes any other
 * string for a search and opens its session picker, a dialog nobody answers.
 */

export interface ClientSession {
  /** The client's session ID. */
  id: string;
  /** The agent's kind when it was recorded: a session of another client is never resumed. */
  kind: string;
  /** The folder the client ran in: the clients find a session by it (another folder: not found, or a dialog). */
  cwd: string;
  /** Where the client keeps it (from the hook): gone means the client no longer has it. */
  transcript?: string | undefined;
  /** When it was first recorded (ISO). */
  at: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isSessionId = (v: unknown): v is string => typeof v === 'string' && UUID.test(v);

/** The session a hook payload reports, or null when it has none (or one not shaped like a client's). */
export function sessionOf(
  payload: Record<string, unknown>,
  o: { kind: string; cwd: string; at: string },
): ClientSession | null {
  const id = payload.session_id;
  if (!isSessionId(id)) return null;
  const t = payload.transcript_path;
  return { id, kind: o.kind, cwd: o.cwd, ...(typeof t === 'string' && t ? { transcript: t } : {}), at: o.at };
}

/** Worth a state write: a session not recorded yet, or another one (a new client, `/clear`, a new transcript). */
export const changed = (was: ClientSession | undefined, now: ClientSession): boolean =>
  !was || was.id !== now.id || was.kind !== now.kind || was.cwd !== now.cwd || was.transcript !== now.transcript;
