/**
 * The message file an agent writes (SPEC §3): one zod schema; the type is inferred from it.
 * Fields baton does not know are kept (agents add their own); `id` and `reply_to` are the daemon's.
 */
import { z } from 'zod';
import { formatIssues } from './config.js';

export const MESSAGE_TYPES = [
  'message',
  'question',
  'response',
  'task',
  'signal',
  'update',
  'issue',
  'handoff',
  'request',
] as const;

export const MessageSchema = z.looseObject({
  content: z
    .string({ error: (iss) => (iss.input === undefined ? 'required' : 'must be a string') })
    .refine((s) => s.trim().length > 0, 'must not be empty'),
  sender: z.string().optional(),
  receiver: z.string().optional(),
  type: z.enum(MESSAGE_TYPES).default('message'),
  timestamp: z
    .string()
    .refine((s) => !Number.isNaN(Date.parse(s)), 'not an ISO-8601 time')
    .optional(),
  subject: z.string().optional(),
  priority: z.enum(['low', 'normal', 'high', 'urgent']).optional(),
  data: z.record(z.string(), z.unknown()).optional(),
});

export type Message = z.infer<typeof MessageSchema>;

export type ParseResult = { ok: true; message: Message } | { ok: false; reason: string };

/**
 * Validate a parsed JSON value as a message travelling through direction `from` → `to`.
 * The reason names the field, e.g. `content: must not be empty`.
 */
export function validateMessage(value: unknown, dir: { from: string; to: string }): ParseResult {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, reason: `the message must be a JSON object, not ${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value}` };
  }
  const parsed = MessageSchema.safeParse(value);
  if (!parsed.success) return { ok: false, reason: formatIssues(parsed.error.issues).join('; ') };
  const m = parsed.data;
  if (m.sender !== undefined && m.sender !== dir.from) {
    return { ok: false, reason: `sender: "${m.sender}" does not match this folder, which carries messages from ${dir.from}` };
  }
  if (m.receiver !== undefined && m.receiver !== dir.to) {
    return { ok: false, reason: `receiver: "${m.receiver}" does not match this folder, which carries messages to ${dir.to}` };
  }
  // The daemon owns both; whatever an agent wrote there is dropped, not archived as if it were ours.
  const { id: _id, reply_to: _reply, ...rest } = m as Message & { id?: unknown; reply_to?: unknown };
  return { ok: true, message: rest as Message };
}
