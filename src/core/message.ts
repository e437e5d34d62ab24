/**
 * The message file an agent writes (docs/protocol.md §3): one zod schema; the type is inferred from it.
 * Fields baton does not know are kept (agents add their own); `id` and `reply_to` are the daemon's.
 */
import { z } from 'zod';
import { formatIssues } from './issues.js';
import { MESSAGE_TYPES } from './message-types.js';

export { MESSAGE_TYPES };

// 2025-11-21, 2025-11-21T18:00, …T18:00:00.123+09:00, …Z
const ISO_8601 = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
const isoTime = z
  .string()
  .refine((s) => ISO_8601.test(s) && !Number.isNaN(Date.parse(s)), 'not an ISO-8601 time')
  .optional();

/** Keys the daemon writes into the archive; an agent's own values for them are dropped. */
const DAEMON_KEYS = new Set(
  `id reply_to received_at delivered_at direction source_file redelivered confirmed
  approved_by kickoff received request turn_tokens turn_cost typed_into deliveries`.split(/\s+/),
);

const MessageSchema = z.looseObject({
  content: z
    .string({ error: (iss) => (iss.input === undefined ? 'required' : 'must be a string') })
    .min(1, 'must not be empty'),
  sender: z.string().optional(),
  receiver: z.string().optional(),
  type: z.enum(MESSAGE_TYPES).default('message'),
  timestamp: isoTime,
  subject: z.string().optional(),
  priority: z.enum(['low', 'normal', 'high', 'urgent']).optional(),
  data: z.record(z.string(), z.unknown()).optional(),
  // Its own deadlines (docs/protocol.md §3, §9): whether an answer is owed, how soon (instead of
  // turns.timeout_s), and when a message still held goes to rejected/.
  requires_response: z.boolean().optional(),
  response_deadline_s: z.number().positive().optional(),
  expires_at: isoTime,
});

/** The reminder timeout of the turn a message opens: its own, none when it needs no answer, else the config's. */
export function turnTimeout(
  m: Pick<Message, 'requires_response' | 'response_deadline_s'> | null,
  configured: number,
): number {
  if (m?.requires_response === false) return 0;
  return m?.response_deadline_s ?? configured;
}

/** Has a message that is still waiting passed its expires_at? */
export const hasExpired = (m: Pick<Message, 'expires_at'> | null, nowMs: number): boolean =>
  !!m?.expires_at && Date.parse(m.expires_at) <= nowMs;

export type Message = z.infer<typeof MessageSchema>;

export type ParseResult = { ok: true; message: Message } | { ok: false; reason: string };

/**
 * The reason a JSON value that is no object gets (`an array`, `string`, `number`, `boolean`, `null`): the
 * same for a whole text here and for one only begun (bus/folders/inbox.ts), whenever the file was read.
 */
export const notAnObject = (what: string): string => `the message must be a JSON object, not ${what}`;

/** Validate a parsed JSON value as a message from `from` to `to`; the reason names the field. */
export function validateMessage(value: unknown, dir: { from: string; to: string }): ParseResult {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const what = Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value;
    return { ok: false, reason: notAnObject(what) };
  }
  const parsed = MessageSchema.safeParse(value);
  if (!parsed.success) return { ok: false, reason: formatIssues(parsed.error.issues).join('; ') };
  const m = parsed.data;
  for (const [key, way] of [
    ['sender', 'from'],
    ['receiver', 'to'],
  ] as const)
    if (m[key] !== undefined && m[key] !== dir[way])
      return {
        ok: false,
        reason: `${key}: "${m[key]}" does not match this folder, which carries messages ${way} ${dir[way]}`,
      };
  // Kept as written, built from the agent's own object: zod's copy would lose a key named "__proto__"
  // (assigning it sets the prototype). The daemon owns DAEMON_KEYS; an agent's values for them are dropped.
  const raw = value as Record<string, unknown>;
  const rest: Record<string, unknown> = {};
  const put = (k: string, v: unknown) =>
    Object.defineProperty(rest, k, { value: v, enumerable: true, writable: true, configurable: true });
  for (const k of Object.keys(raw)) if (!DAEMON_KEYS.has(k)) put(k, raw[k]);
  put('type', m.type); // with its default
  return { ok: true, message: rest as Message };
}
