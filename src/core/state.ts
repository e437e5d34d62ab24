/**
 * The conversation's state: the four keys of docs/protocol.md §4 plus baton's own bookkeeping, as one zod schema.
 * Pure: a bus stores it (state.json on the files bus) and parses it here, so every bus refuses the same
 * corrupt states with the same words.
 */
import { z } from 'zod';
import { FINISH_REASONS, PAUSE_REASONS } from './conversation.js';
import { DIALOG_KINDS } from './dialog.js';
import { MESSAGE_ID_SOURCE } from './ids.js';
import { formatIssues } from './issues.js';
import type { TurnState } from './turns.js';

const id = z.string().regex(new RegExp(`^${MESSAGE_ID_SOURCE}$`), 'an ID like msg_0001');

const str = z.string();
const count = z.number().min(0);
const byAgent = z.record(str, count);

const StateSchema = z.looseObject({
  current_turn: str.min(1),
  last_message_id: id.nullable(),
  message_counter: z.int().min(0),
  pending_reply_to: id.nullable(),
  updated_at: str.optional(),
  // Conversation control (docs/protocol.md §9; see conversation.ts).
  finished: z.object({ reason: z.enum(FINISH_REASONS), at: str, note: str.optional() }).nullish(),
  stalled: z.boolean().optional(),
  nudges: z.int().min(0).optional(),
  turn_started_at: str.optional(),
  started_at: str.optional(),
  turns_base: z.int().min(0).optional(),
  paused: z
    .object({
      at: str,
      /** Who paused it when a person did not: the loop guard (loop.ts), a budget. */
      reason: z.enum(PAUSE_REASONS).optional(),
      /** The messages that made the guard pause it. */
      evidence: z.array(id).optional(),
      /** A budget reached (docs/protocol.md §12): which, how much was spent of how much. */
      budget: str.optional(),
      agent: str.optional(),
      spent_usd: z.number().optional(),
      max_usd: z.number().optional(),
    })
    .nullish(),
  closing: z.object({ agent: str, at: str, asked: z.boolean(), outcome: id.nullish() }).nullish(),
  /** The loop guard looks only at messages after this one (the last it paused on): a resume is not undone. */
  loop_since: z.int().min(0).optional(),
  /** Made by `baton up --demo`: the bundled demo agents hold it (it ends after DEMO_TURNS messages). */
  demo: z.boolean().optional(),
  /**
   * The turn holder waits at a dialog for a person (docs/protocol.md §12; blocked.ts): who, since when, at what;
   * its choices and identity once its screen showed it. The time blocked counts for no reminder and no limit.
   */
  blocked: z
    .looseObject({
      agent: str,
      since: str,
      kind: z.enum(DIALOG_KINDS),
      question: str,
      choices: z.array(z.object({ n: z.int(), label: str })).optional(),
      dialog: str.optional(),
    })
    .nullish(),
  blocked_ms: count.optional(),
  turn_blocked_ms: count.optional(),
  /** Tokens the agents used, from their hooks: in all, and per agent. */
  tokens: z.object({ total: count, by_agent: byAgent }).optional(),
  /** What they cost in USD (core/budget.ts), and the models counted with no price. */
  cost: z.object({ usd: count, by_agent: byAgent, unpriced: z.array(str).optional() }).optional(),
  /** Budgets `baton resume --budget` raised for this conversation, by key path (`turns.max_cost_usd`). */
  raised: z.record(str, z.number().positive()).optional(),
  /** Each agent's client session, from its hooks (core/sessions.ts): `baton up` resumes it. */
  sessions: z.record(str, z.object({ id: str, kind: str, cwd: str, transcript: str.optional(), at: str })).optional(),
});

export type State = z.infer<typeof StateSchema> & TurnState;

/** A state that cannot be trusted: the daemon refuses to start (exit 1) and names the way out. */
export class StateError extends Error {
  override name = 'StateError';
}

const corrupt = (where: string, why: string) =>
  `${where} is corrupt (${why}). The daemon will not guess the turn: run "baton doctor --repair" to ` +
  'rebuild it from the archive (the last archived message decides whose turn it is).';

/** Parse stored state text; `where` names it in the error (a file, or a database row). */
export function parseState(text: string, where: string): State {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new StateError(corrupt(where, `not JSON: ${(err as Error).message}`));
  }
  return checkState(raw, where);
}

export function checkState(raw: unknown, where: string): State {
  const parsed = StateSchema.safeParse(raw);
  if (!parsed.success) throw new StateError(corrupt(where, formatIssues(parsed.error.issues).join('; ')));
  return parsed.data;
}
