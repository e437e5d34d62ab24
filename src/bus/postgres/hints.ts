/**
 * Notifications on the PostgreSQL bus: one channel per conversation, and what each payload asks of a
 * daemon. They are hints (pg-boss's pattern): a daemon also re-scans, so a missed one delays, never loses.
 *
 * - `messages@HOST` — a message stored for that machine's agent: wakes only that machine's daemon. With
 *   `#SEQ {direction, file, body}` after it (written by the relay when it fits in a notification) it
 *   carries the row, so that daemon need not read its queue (~0.9 ms of a delivery across machines,
 *   traced). The turn step still deletes the row only if its body is the one carried: a wrong hint
 *   delivers nothing.
 * - `moved@HOST` — a turn step of HOST's daemon: wakes every other machine's. With `#VERSION {state}` it
 *   carries the state that step saved: the step deleted a row only from a direction delivered on HOST, so
 *   the other machines keep their rows and take the state without a read. A daemon's own turn step tells
 *   it nothing it does not know.
 * - `messages` — the state changed some other way: every daemon looks again. `requests`: a look at the
 *   requests. `events` and `reply` are for readers and wake no daemon (waking every daemon on every event
 *   cost each one a full pass per event, on every machine).
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
  if (
    !c ||
    !r ||
    typeof r.direction !== 'string' ||
    typeof r.body !== 'string' ||
    (r.file !== null && typeof r.file !== 'string')
  )
    return undefined;
  return { seq: c[0], direction: r.direction, file: r.file, body: r.body };
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
