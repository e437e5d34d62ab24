/**
 * The dashboard's controls: each POST body is checked, then built into a request by the same functions
 * the CLI commands use (app/requests.ts), so a person's input is judged the same way wherever it comes
 * from. A body that does not fit is a 400 with the reason; so is input the CLI would call a usage error.
 */
import { z } from 'zod';
import { UsageError } from '../app/input.js';
import { approveRequest, endRequest, rejectRequest, sendRequest, startRequest } from '../app/requests.js';
import type { Config } from '../config/config.js';
import { formatIssues } from '../core/issues.js';
import type { Request } from '../core/requests.js';
import { HttpError } from './http.js';

const Bodies = {
  send: z.strictObject({ to: z.string(), content: z.string(), type: z.string().optional() }),
  start: z.strictObject({ topic: z.string() }),
  end: z.strictObject({ reason: z.string().max(1000).optional() }),
  pause: z.strictObject({}),
  resume: z.strictObject({}),
  approve: z.strictObject({ file: z.string().optional(), all: z.boolean().optional() }),
  reject: z.strictObject({ file: z.string(), reason: z.string() }),
  // A dialog's button: the choice's number and the identity of the dialog the page showed (docs/protocol.md §12).
  answer: z.strictObject({ agent: z.string(), choice: z.string().min(1).max(500), dialog: z.string() }),
};
export type Op = keyof typeof Bodies;

export const isOp = (op: string | undefined): op is Op => op !== undefined && Object.hasOwn(Bodies, op);

/** The request a control builds, through the CLI commands' own checks (a UsageError becomes a 400). */
export function toRequest(config: Config, op: Op, body: unknown): Request {
  const parsed = Bodies[op].safeParse(body);
  if (!parsed.success) throw new HttpError(400, `bad request body: ${formatIssues(parsed.error.issues).join('; ')}`);
  const b = parsed.data as Record<string, unknown>;
  switch (op) {
    case 'send':
      return sendRequest(config, b.to as string, b.content as string, (b.type as string | undefined) ?? 'message');
    case 'end':
      return endRequest(b.reason as string | undefined);
    case 'start':
      return startRequest(b.topic as string);
    case 'pause':
    case 'resume':
      return { op };
    case 'approve':
      return approveRequest(b.file as string | undefined, b.all === true);
    case 'reject':
      return rejectRequest(b.file as string, b.reason as string);
    case 'answer':
      return dashboardAnswer(config, b.agent as string, b.choice as string, b.dialog as string);
  }
}

/** The dashboard's answer to a dialog it showed: typed only while that same dialog is on the agent's screen. */
function dashboardAnswer(config: Config, agent: string, choice: string, dialog: string): Request {
  if (!Object.hasOwn(config.agents, agent))
    throw new UsageError(`unknown agent "${agent}" (agents: ${config.order.join(', ')})`);
  if (!/^[0-9a-f]{16}$/.test(dialog)) throw new UsageError('dialog must be the identity the page was given');
  return { op: 'answer', to: agent, choice, dialog, by: 'dashboard' };
}
