/**
 * The conversation's clock (docs/protocol.md §10, "Time"): one per conversation, so that every machine
 * measures its durations, deadlines and expiry — `max_duration_s` from `started_at`, reminders and stalls
 * from `turn_started_at`, a message's `expires_at` — and writes its timestamps with the same time. On the
 * files bus every daemon of a conversation runs on the machine that holds its folder: its own clock. On the
 * PostgreSQL bus it is the database's: a machine whose clock was 2 h ahead ended a seconds-old
 * conversation by max_duration_s and refused as expired a message whose expires_at was 30 min away, since
 * it compared times another machine had written with its own.
 */

/** The conversation's time (the daemon's parts): milliseconds since the epoch, UTC; no I/O. */
export interface Clock {
  /**
   * Now, on the conversation's clock: what every duration, deadline and expiry is measured with and every
   * conversation timestamp is written with (as an ISO-8601 string in UTC). Never goes back within a daemon.
   */
  now(): number;
}

/** The conversation's time as a timestamp to store: ISO-8601, UTC. */
export const isoAt = (ms: number): string => new Date(ms).toISOString();
