/**
 * An agent's reply as a message file (docs/protocol.md §3), for `baton post` and the MCP server's post tool alike:
 * who sends it, to whom (the one outgoing folder, or the one named), and the fields baton fills in.
 * Every misuse is a UsageError naming what to give.
 */
import type { Config, Direction } from '../config/config.js';
import { MESSAGE_TYPES } from '../core/message.js';
import { UsageError } from './input.js';

export interface PostInput {
  from: string | undefined;
  text: string;
  to?: string | undefined;
  type?: string | undefined;
  subject?: string | undefined;
}

export function composePost(config: Config, p: PostInput): { direction: Direction; message: Record<string, unknown> } {
  const from = p.from;
  if (!from) throw new UsageError('who is sending? give --as AGENT (or set BATON_AGENT)');
  if (!config.agents[from]) throw new UsageError(`unknown agent "${from}" (agents: ${config.order.join(', ')})`);
  if (!p.text.trim()) throw new UsageError('the message text is empty');
  if (p.type !== undefined && !(MESSAGE_TYPES as readonly string[]).includes(p.type)) {
    throw new UsageError(`--type must be one of ${MESSAGE_TYPES.join(', ')}`);
  }
  const outgoing = config.directions.filter((d) => d.from === from && (p.to === undefined || d.to === p.to));
  if (outgoing.length === 0)
    throw new UsageError(p.to ? `${from} has no folder for messages to ${p.to}` : `${from} has no outgoing folder`);
  if (outgoing.length > 1)
    throw new UsageError(`${from} can write to ${outgoing.map((d) => d.to).join(', ')}: choose one with --to`);
  const d = outgoing[0]!;
  return {
    direction: d,
    message: {
      timestamp: new Date().toISOString(),
      sender: from,
      receiver: d.to,
      content: p.text,
      type: p.type ?? 'message',
      ...(p.subject ? { subject: p.subject } : {}),
    },
  };
}
