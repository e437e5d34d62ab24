/**
 * A person's requests to the running daemon (`baton end`, `pause`, `send`, …) and its replies: one writer of the
 * state and one typist per pane, so a person's text never lands between a paste and its Enter. The bus carries
 * them; this schema says what they say.
 */
import { z } from 'zod';
import { MESSAGE_TYPES } from './message.js';

export const RequestSchema = z.discriminatedUnion('op', [
  z.strictObject({ op: z.literal('end'), reason: z.string().optional() }),
  // `budget`: raise the budget that paused it (or the conversation's) to this many USD (core/budget.ts).
  z.strictObject({ op: z.literal('resume'), budget: z.number().positive().max(1e9).optional() }),
  z.strictObject({ op: z.literal('pause') }),
  // A kick-off: the topic typed to the turn holder as the opening of its turn (`baton start`, `up --topic`).
  z.strictObject({ op: z.literal('start'), topic: z.string().min(1) }),
  z.strictObject({
    op: z.literal('send'),
    to: z.string().min(1),
    content: z.string().min(1),
    type: z.enum(MESSAGE_TYPES).default('message'),
  }),
  // baton's own, across machines: type a person's note to all (archived already) into one agent of this machine.
  z.strictObject({ op: z.literal('note'), id: z.string().regex(/^user_\d{4,}$/), to: z.string().min(1) }),
  z.strictObject({ op: z.literal('approve'), file: z.string().min(1).optional(), all: z.boolean().optional() }),
  z.strictObject({ op: z.literal('reject'), file: z.string().min(1), reason: z.string().min(1) }),
  // A person answers an agent's dialog (docs/protocol.md §12): `choice` as they gave it, `dialog` the identity of
  // the dialog they were offered (core/dialog.ts) — typed only while that same dialog is on its screen.
  z.strictObject({
    op: z.literal('answer'),
    to: z.string().min(1),
    choice: z.string().min(1).max(500),
    dialog: z.string().regex(/^[0-9a-f]{16}$/, 'a dialog identity (16 hex digits)'),
    by: z.enum(['cli', 'dashboard']),
  }),
  // baton's own, across machines (docs/protocol.md §10): a notice for an agent on another machine, typed there by
  // its daemon, unanswered; always "[baton] …" (never "/" or "!", which agent CLIs run).
  z.strictObject({
    op: z.literal('notice'),
    to: z.string().min(1),
    text: z.string().regex(/^\[baton\] /, 'a notice starts with "[baton] "'),
  }),
]);
export type Request = z.infer<typeof RequestSchema>;

export interface Reply {
  ok: boolean;
  /** One line for a person. */
  message: string;
  [key: string]: unknown;
}

/** A refusal: nothing was done, and `message` says why. */
export const fail = (message: string): Reply => ({ ok: false, message });
