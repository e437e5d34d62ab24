/** events.jsonl (SPEC §7): one JSON object a line, appended; a line is one write, so lines never interleave. */
import { appendFile } from 'node:fs/promises';

export type EventName =
  | 'started'
  | 'stopped'
  | 'delivered'
  | 'held'
  | 'rejected'
  | 'redelivered'
  | 'pane_unavailable'
  | 'pane_available'
  | 'nudged'
  | 'stalled'
  | 'finished'
  | 'resumed'
  | 'pending'
  | 'approved'
  | 'sent'
  | 'screen_unknown'
  | 'delivery_failed'
  | 'recovered'
  | 'paused';

export interface EventLog {
  emit(event: EventName, fields?: Record<string, unknown>): Promise<void>;
}

export function eventLog(file: string, onError: (err: unknown) => void): EventLog {
  return {
    async emit(event, fields = {}) {
      const line = `${JSON.stringify({ ts: new Date().toISOString(), event, ...fields })}\n`;
      // The log is a record, not the source of truth: failing to append must never stop a delivery.
      await appendFile(file, line).catch(onError);
    },
  };
}
