/**
 * Events (docs/protocol.md §7): what happened, one JSON object each, in order, appended by a bus and followed
 * by readers (`baton log --follow`, the dashboard). A record, not the truth: a failed append stops nothing.
 */

export type EventName =
  | 'started'
  | 'stopped'
  | 'delivered'
  | 'held'
  | 'rejected'
  | 'redelivered'
  | 'leftover_paste'
  | 'pane_unavailable'
  | 'pane_available'
  | 'nudged'
  | 'stalled'
  | 'finished'
  | 'resumed'
  | 'paused'
  | 'loop'
  | 'closing'
  | 'outcome'
  | 'pending'
  | 'approved'
  | 'sent'
  | 'screen_unknown'
  | 'delivery_failed'
  | 'recovered'
  | 'received'
  | 'delivery_unconfirmed'
  | 'auto_replied'
  | 'config_reloaded'
  | 'config_rejected'
  // A person is needed, or the conversation paused itself (docs/protocol.md §12); the notifier tells them.
  // blocked: the turn holder waits at a dialog; unblocked: it closed; answered: a person answered one.
  | 'blocked'
  | 'unblocked'
  | 'answered'
  | 'budget'
  | 'restarted';

export interface EventLog {
  /**
   * Append one event, in order with this process's others. Never throws for a write that failed (it is
   * reported in the daemon's own log) and writes nothing once the daemon is fenced.
   */
  emit(event: EventName, fields?: Record<string, unknown>): Promise<void>;
}

/**
 * Told of every event a daemon's log takes, after it is appended (the notifier: daemon/notify/). Called
 * synchronously; it must not block or throw — a notification is never on the delivery path.
 */
export type EventObserver = (event: EventName, fields: Record<string, unknown>) => void;

/** `log`, with each event also given to `observer` once appended (a failed append included: it happened). */
export function observed(log: EventLog, observer: EventObserver | undefined): EventLog {
  if (!observer) return log;
  return {
    async emit(event, fields = {}) {
      await log.emit(event, fields);
      try {
        observer(event, fields);
      } catch {
        /* the observer's own trouble: never the daemon's */
      }
    },
  };
}

/** The daemon's side: what it reports as it goes (most of its parts). */
export type Events = { readonly events: EventLog };

/** A log that is not the one a reading was meant for (replaced meanwhile: `baton up --fresh`). */
export class LogReplaced extends Error {
  override name = 'LogReplaced';
}

/** The generation of a log that does not exist yet. */
export const NO_LOG = '0';

/**
 * Reading events in order and following new ones (`baton log --follow`, the dashboard). A log has a
 * generation (a new one when the conversation is replaced) and positions that only grow (byte offsets
 * on the files bus, sequence numbers in a database); a reader remembers where it is as (gen, position).
 */
export interface EventSource {
  /** Which log this is and where it ends now (NO_LOG and 0 when there is none yet). */
  head(): Promise<{ gen: string; end: number }>;
  /**
   * Call `each` for every event of log `gen` in [from, until), with the position just past it; `each`
   * returning false stops the reading. `skipping`: the reading starts inside a line too long to be an
   * event (skipped up to its end). Throws LogReplaced when the log is not `gen`. Returns the position
   * just past what was read or skipped.
   */
  read(
    gen: string,
    from: number,
    until: number,
    each: (event: Record<string, unknown>, end: number) => unknown,
    opts?: { skipping?: boolean },
  ): Promise<{ last: number; skipping: boolean }>;
  /** Call `changed` whenever new events may be there (a hint: read to find out). */
  follow(changed: () => void): { close(): void };
}

/** A reader's side: `baton log --follow` and the dashboard's feed. Reads only; never blocks a writer. */
export type EventFeed = { readonly events: EventSource };
