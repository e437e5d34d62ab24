/**
 * Notifications on the PostgreSQL bus: one channel per conversation; hints only (a daemon also re-scans).
 * - `messages@HOST`: a message for that machine's agent; `#SEQ {direction, file, body}` carries the row (the turn
 *   step still deletes it only if the body matches).
 * - `moved@HOST`: a turn step of HOST; `#VERSION {state}` carries the saved state to the other machines.
 * - `messages`: look again; `requests`: look at requests; `events`, `reply`: readers only (waking every daemon
 *   per event cost each a pass). docs/decisions/0005-postgres-round-trips.md.
 */
import { createHash } from 'node:crypto';
import { encodeText } from './sql/codec.js';
import type { WaitingRow } from './sql/waiting.js';

/**
 * The NOTIFY channel of one conversation (channel names are identifiers: at most 63 bytes), from its
 * scoped name (sql/index.ts), so the same conversation name in two schemas has two channels.
 */
export const channelOf = (conversation: string): string =>
  `baton_${createHash('sha1').update(conversation).digest('hex').slice(0, 16)}`;

/** The payload that wakes the daemon of `host` only. */
export const messagesFor = (host: string): string => `messages@${host}`;

/** The payload of a turn step by the daemon of `host`: the turn moved. */
export const movedBy = (host: string): string => `moved@${host}`;

export type Hint =
  | { kind: 'messages'; row?: WaitingRow; moved?: { version: string; state: unknown } }
  | { kind: 'requests' };

/** What `payload` asks of the daemon of `host`, or null: nothing. */
export function hintOf(payload: string, host: string): Hint | null {
  if (payload === 'requests') return { kind: 'requests' };
  if (payload === 'messages' || payload === messagesFor(host)) return { kind: 'messages' };
  if (payload.startsWith(`${messagesFor(host)}#`)) return { kind: 'messages', row: rowOf(carried(payload)) };
  if (payload.startsWith('moved@') && payload !== movedBy(host) && !payload.startsWith(`${movedBy(host)}#`))
    return { kind: 'messages', moved: movedOf(carried(payload)) };
  return null;
}

/** What a payload carries after its `#`: `[number, JSON]`, or null when it is not that. */
function carried(payload: string): [string, unknown] | null {
  const m = /#(\d+) /.exec(payload);
  if (!m) return null;
  try {
    return [m[1]!, JSON.parse(payload.slice(m.index + m[0].length))];
  } catch {
    return null;
  }
}

function rowOf(c: [string, unknown] | null): WaitingRow | undefined {
  const r = (c?.[1] ?? null) as Partial<WaitingRow> | null;
  if (!c || typeof r?.direction !== 'string' || typeof r.body !== 'string') return undefined;
  return r.file === null || typeof r.file === 'string'
    ? { seq: c[0], direction: r.direction, file: r.file, body: r.body }
    : undefined;
}

const movedOf = (c: [string, unknown] | null): { version: string; state: unknown } | undefined =>
  c ? { version: c[0], state: c[1] } : undefined;

/**
 * A value as a payload carries it, or null when it would not fit (a notification holds 8000 bytes), as
 * sent: encoded (sql/codec.ts), which may make it longer — a payload over the limit fails its whole
 * statement, the store of a message with it.
 */
const fits = (value: unknown): string | null => {
  const json = JSON.stringify(value);
  return Buffer.byteLength(encodeText(json)) < 7800 ? json : null;
};

/** What a stored message's NOTIFY carries after `messages@HOST#SEQ `, or null when it would not fit. */
export const rowHint = (direction: string, file: string | null, body: string): string | null =>
  fits({ direction, file, body });

/** What a turn step's NOTIFY carries after `moved@HOST#VERSION `, or null when it would not fit. */
export const stateHint = (state: unknown): string | null => fits(state);
