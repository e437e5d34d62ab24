/**
 * An agent's reply as a message (docs/protocol.md §3), for `baton post` and the MCP post tool: its sender and
 * receiver, the fields baton fills in, and what the daemon will check checked first, so the sender hears at once
 * of a message that could never be delivered. Every misuse is a UsageError naming what to give.
 */
import { postingFor } from '../bus/open.js';
import type { Config, Direction } from '../config/config.js';
import { MESSAGE_TYPES } from '../core/message.js';
import { decide, initialState } from '../core/turns.js';
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
  const agents = `(agents: ${config.order.join(', ')})`;
  if (!from) throw new UsageError('who is sending? give --as AGENT (or set BATON_AGENT)');
  if (!config.agents[from]) throw new UsageError(`unknown agent "${from}" ${agents}`);
  if (!p.text.trim()) throw new UsageError('the message text is empty');
  if (p.type !== undefined && !(MESSAGE_TYPES as readonly string[]).includes(p.type))
    throw new UsageError(`--type must be one of ${MESSAGE_TYPES.join(', ')}`);
  // A folder the policy never delivers (asked as if it were from's turn): no choice without --to, refused with it.
  const rules = { policy: config.turns.policy, agents: config.order };
  const verdict = (d: Direction) => decide(initialState(from), d, rules);
  let outgoing = config.directions.filter((d) => d.from === from && (p.to === undefined || d.to === p.to));
  if (p.to === undefined && outgoing.some((d) => verdict(d).action !== 'reject'))
    outgoing = outgoing.filter((d) => verdict(d).action !== 'reject');
  if (outgoing.length === 0 && p.to !== undefined && !config.agents[p.to])
    throw new UsageError(`${from} has no folder for messages to ${p.to}: there is no such agent ${agents}`);
  if (outgoing.length === 0)
    throw new UsageError(p.to ? `${from} has no folder for messages to ${p.to}` : `${from} has no outgoing folder`);
  if (outgoing.length > 1)
    throw new UsageError(`${from} can write to ${outgoing.map((d) => d.to).join(', ')}: choose one with --to`);
  const d = outgoing[0]!;
  const refused = verdict(d);
  if (refused.action === 'reject') throw new UsageError(`${refused.reason} (baton would reject it)`);
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

/** What became of a post: where it went (and by which way), or why nothing was stored. */
export type PostOutcome =
  | { kind: 'posted'; direction: Direction; name: string; where: string; via: 'folder' | 'database' }
  | { kind: 'refused'; direction: Direction; reason: string }
  | { kind: 'uncertain'; direction: Direction; reason: string };

export type Composed = ReturnType<typeof composePost>;

/** Check and store an agent's message: into its folder on its own machine, else the database. */
export async function postMessage(config: Config, { direction, message }: Composed): Promise<PostOutcome> {
  const { via, posting } = postingFor(config, direction.from);
  const r = await posting.post(direction, message);
  if (r.kind === 'posted') return { ...r, direction, via };
  return r.kind === 'refused' ? { ...r, direction } : { kind: r.kind, reason: r.reason, direction };
}
