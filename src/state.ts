/**
 * state.json: the four keys of SPEC §4 plus baton's own bookkeeping. Written atomically by the daemon
 * only, under its lock. A state.json that cannot be read as state stops the daemon with a clear error.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { formatIssues } from './config.js';
import { FINISH_REASONS } from './conversation.js';
import { isErrno, writeAtomic } from './fsx.js';
import type { TurnState } from './turns.js';

const id = z.string().regex(/^msg_\d{4,}$/, 'an ID like msg_0001');

export const StateSchema = z.looseObject({
  current_turn: z.string().min(1),
  last_message_id: id.nullable(),
  message_counter: z.int().min(0),
  pending_reply_to: id.nullable(),
  updated_at: z.string().optional(),
  // Conversation control (SPEC §9; see conversation.ts).
  finished: z.object({ reason: z.enum(FINISH_REASONS), at: z.string(), note: z.string().optional() }).nullable().optional(),
  stalled: z.boolean().optional(),
  nudges: z.int().min(0).optional(),
  turn_started_at: z.string().optional(),
  started_at: z.string().optional(),
  turns_base: z.int().min(0).optional(),
  paused: z.object({ at: z.string() }).nullable().optional(),
  /** Made by `baton up --demo`: the bundled demo agents hold it (it ends after DEMO_TURNS messages). */
  demo: z.boolean().optional(),
});

export type State = z.infer<typeof StateSchema> & TurnState;

export class StateError extends Error {
  override name = 'StateError';
}

const corrupt = (file: string, why: string) =>
  `${file} is corrupt (${why}). The daemon will not guess the turn: run "baton doctor --repair" to ` +
  'rebuild it from archive/ (the last archived message decides whose turn it is).';

/** The state on disk, or null when there is no state.json yet. */
export async function readState(file: string): Promise<State | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return null;
    throw new StateError(`${file}: cannot read (${(err as NodeJS.ErrnoException).code})`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new StateError(corrupt(file, `not JSON: ${(err as Error).message}`));
  }
  const parsed = StateSchema.safeParse(raw);
  if (!parsed.success) throw new StateError(corrupt(file, formatIssues(parsed.error.issues).join('; ')));
  return parsed.data;
}

export async function writeState(file: string, state: State): Promise<void> {
  const out: State = { ...state, updated_at: new Date().toISOString() };
  await writeAtomic(file, `${JSON.stringify(out, null, 2)}\n`);
}
