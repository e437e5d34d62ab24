/**
 * A message's `type` (docs/protocol.md §3). Here and not in message.ts, so the help of `baton post` and
 * `baton send` lists them without loading zod.
 */
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
  /** The closing agent's account of a finished conversation (turns.closing, docs/protocol.md §12). */
  'outcome',
] as const;
