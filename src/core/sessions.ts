/**
 * Each agent's client session, kept in the state's `sessions` so `baton up` after a reboot, a crash or `down`
 * resumes it and the agent keeps its memory (docs/protocol.md §12). Every hook payload of the three clients
 * carries `session_id` (measured): the same through turns and resumes, new after Claude Code's `/clear`. It is
 * taken from the prompt hook, whose `transcript_path` names the turns' file (Gemini's SessionStart after a
 * resume names an empty stub). Only a UUID is kept: the agent writes the note, the ID goes onto a command
 * line, and Claude Code takes any other string for a search and opens a session picker nobody answers.
 */

/**
 * `kind`: the agent's when recorded (another client's session is never resumed); `cwd`: the clients find a
 * session by its folder (another: not found, or a dialog); `transcript` gone: the client no longer has it.
 */
export interface ClientSession {
  id: string;
  kind: string;
  cwd: string;
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
