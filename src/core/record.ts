/**
 * The archive record: every delivered message with its ID, reply_to and times. The state can be rebuilt from
 * the archive, never the other way round; this module says, once for every bus, what a record holds and how it
 * is made and stamped. Written with `delivered_at: null` before its text is typed and stamped once the submit
 * is confirmed, a record without `delivered_at` marks a delivery that was cut short.
 */
import type { Decision } from './turns.js';
import { isRecordId, parseId } from './ids.js';
import type { Message } from './message.js';
import type { Received } from './receipt.js';
import type { Usage } from './tokens.js';
import type { TurnCost } from './pricing.js';

/** How a submit was confirmed: on screen (after a second Enter), not checked (no screen), or by the agent's hook. */
export type Confirmation = 'screen' | 'screen_after_second_enter' | 'not_checked' | 'hook';

export type ArchiveRecord = Message & {
  id: string;
  reply_to: string | null;
  sender: string;
  receiver: string;
  /** The direction folder and file name the message came from (a person's: "user" and the request). */
  direction: string;
  source_file: string;
  received_at: string;
  delivered_at: string | null;
  /** Set when the text was typed again after a crash that may have come after the first paste. */
  redelivered?: boolean;
  confirmed?: Confirmation;
  /** The request that approved it (a re-run says "approved as …") or asked for it (`send`: never typed twice). */
  approved_by?: string;
  request?: string;
  /** A person's topic that opened the holder's turn (`baton start`, `baton up --topic`). */
  kickoff?: boolean;
  /** The agent's hook reported the prompt its model got: when, and whether it held the text intact. */
  received?: Received;
  /** Posted by baton from the agent's final reply (`agents.<name>.reply`: "auto" or "both"). */
  auto?: boolean;
  /** What the turn this message opened cost its receiver: its model's usage, and in USD (`unpriced`: no price). */
  turn_tokens?: Usage;
  turn_cost?: TurnCost;
  /** The pane whose agent has this message: a holder found in another pane was restarted (core/restart.ts). */
  typed_into?: { id: string; pid: number; server: string };
  /** A person's note to all (`receiver: "all"`): each agent's delivery (`at` null: typing began, unconfirmed). */
  deliveries?: Record<string, NoteDelivery>;
};

/** One agent's delivery of a person's note to all. */
export interface NoteDelivery {
  at: string | null;
  confirmed?: Confirmation;
  redelivered?: boolean;
  received?: Received;
}

/** What may be added to an archived record after it was written (a hook's receipt, a turn's tokens). */
export type Amendment = Partial<
  Pick<
    ArchiveRecord,
    'received' | 'confirmed' | 'turn_tokens' | 'turn_cost' | 'redelivered' | 'deliveries' | 'typed_into'
  >
>;

/**
 * A record with an amendment merged in, `deliveries` agent by agent: two machines' daemons recording their own
 * agents' deliveries of one note never undo each other (the PostgreSQL bus does the same in SQL).
 */
export function amended(r: ArchiveRecord, fields: Amendment): ArchiveRecord {
  return {
    ...r,
    ...fields,
    ...(fields.deliveries ? { deliveries: { ...r.deliveries, ...fields.deliveries } } : {}),
  };
}

type Delivery = Extract<Decision, { action: 'deliver' }>;

/** An agent's message as archived when its turn step commits: the daemon's fields win over the agent's. */
export function messageRecord(a: {
  message: Message;
  route: { direction: string; from: string; to: string; file: string };
  decision: Delivery;
  receivedAt: string;
  extra?: Record<string, unknown>;
}): ArchiveRecord {
  const { message: m, route, decision, receivedAt, extra = {} } = a;
  // The turn step's ID and reply_to win whatever the message says (validation drops an agent's own too).
  const { id: _id, reply_to: _replyTo, ...fields } = m as Message & { id?: unknown; reply_to?: unknown };
  return {
    id: decision.id,
    reply_to: decision.reply_to,
    ...fields,
    sender: route.from,
    receiver: route.to,
    type: m.type,
    content: m.content,
    direction: route.direction,
    source_file: route.file,
    ...extra,
    received_at: receivedAt,
    delivered_at: null,
  };
}

/** A person's message (`baton send`, `baton start`): its own counter, no reply_to, no turn. */
export function personRecord(p: {
  id: string;
  to: string;
  content: string;
  type: string;
  /** The request that made it: a daemon killed before answering finds the message again by it. */
  request: string;
  receivedAt: string;
  extra?: Record<string, unknown>;
}): ArchiveRecord {
  const { id, to, content, type, request, receivedAt, extra = {} } = p;
  return {
    id,
    reply_to: null,
    sender: 'user',
    receiver: to,
    type: type as ArchiveRecord['type'],
    content,
    direction: 'user',
    source_file: request,
    received_at: receivedAt,
    delivered_at: null,
    request,
    ...extra,
  } as ArchiveRecord;
}

/** The record once its submit is confirmed. Stamped once: a record already stamped keeps its stamp. */
export function stamped(r: ArchiveRecord, confirmed: Confirmation, redelivered: boolean, at: string): ArchiveRecord {
  if (r.delivered_at) return r;
  return { ...r, delivered_at: at, confirmed, ...(redelivered ? { redelivered: true } : {}) };
}

/** The record with a receipt that came before its stamp (the hook beat the screen): the hook confirmed it. */
export const withReceipt = (r: ArchiveRecord, received: Received | undefined): ArchiveRecord =>
  received ? { ...r, received, confirmed: 'hook' } : r;

/** An archive file name: `msg_NNNN.json` (an agent's message) or `user_NNNN.json` (a person's). */
export const isRecordName = (n: string): boolean => n.endsWith('.json') && isRecordId(n.slice(0, -5));

type Timed = Pick<ArchiveRecord, 'id' | 'delivered_at' | 'received_at'>;
export const when = (r: Pick<Timed, 'delivered_at' | 'received_at'>): string => r.delivered_at ?? r.received_at;
/** The order records reached the panes: delivery time first (a person's messages fall between turns), then counter. */
export const byDelivery = (a: Timed, b: Timed): number =>
  when(a) < when(b) ? -1 : when(a) > when(b) ? 1 : (parseId(a.id) ?? 0) - (parseId(b.id) ?? 0);
