/**
 * What a person is told about (docs/protocol.md §12), from the conversation's own events: a bus event in, a
 * happening out. The notifier feeds it its own daemon's events, so one machine tells each happening.
 */

/** The events a sink can be told about; each sink's `events` picks among them (default: all). */
export const NOTIFY_EVENTS = ['blocked', 'finished', 'stalled', 'budget', 'loop', 'error'] as const;
export type NotifyEvent = (typeof NOTIFY_EVENTS)[number];

/** What went wrong for an `error` happening: the daemon's own troubles, which no bus event carries. */
const NOTIFY_ERRORS = ['lease_lost', 'config_rejected', 'database_away', 'store_changed'] as const;
export type NotifyError = (typeof NOTIFY_ERRORS)[number];

export interface Happening {
  event: NotifyEvent;
  /** The agent it is about (blocked, stalled, an agent's budget), or null: the whole conversation. */
  agent: string | null;
  /** For `error`: which trouble (two different troubles are two happenings). */
  error?: NotifyError | undefined;
  /** The event's own fields, as the bus logged them (reason, question, evidence, …). */
  details: Record<string, unknown>;
}

/** A happening's outcome for the folding: told, or a pending one withdrawn (the dialog closed meanwhile). */
export type Observed = { kind: 'happened'; happening: Happening } | { kind: 'over'; event: NotifyEvent; agent: string };

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** A bus event as a happening. Not `paused`: budget and loop pauses have their own events; a person's is their own. */
export function observe(name: string, fields: Record<string, unknown>): Observed | null {
  const happened = (event: NotifyEvent, agent: string | null, extra: Partial<Happening> = {}): Observed => ({
    kind: 'happened',
    happening: { event, agent, details: fields, ...extra },
  });
  const agent = str(fields.agent);
  switch (name) {
    case 'blocked':
    case 'stalled':
    case 'budget':
      return happened(name, agent);
    case 'unblocked':
    case 'answered':
      return agent ? { kind: 'over', event: 'blocked', agent } : null;
    case 'finished':
    case 'loop':
      return happened(name, null);
    case 'config_rejected':
      return happened('error', null, { error: 'config_rejected' });
    default:
      return null;
  }
}

/** Two happenings that fold into one another: the same event, for the same agent (and the same trouble). */
export const foldKey = (h: Pick<Happening, 'event' | 'agent' | 'error'>): string =>
  `${h.event}\u0000${h.agent ?? ''}\u0000${h.error ?? ''}`;
