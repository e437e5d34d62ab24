/**
 * The conversation's clock (docs/protocol.md §10, "Time"): every machine measures durations, deadlines and
 * expiry (`max_duration_s`, reminders, stalls, `expires_at`) and writes timestamps with the same time. The
 * files bus lives on one machine: its own clock. The PostgreSQL bus uses the database's: a machine 2 h ahead
 * ended a seconds-old conversation by max_duration_s and refused as expired a message 30 min from expiry.
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
