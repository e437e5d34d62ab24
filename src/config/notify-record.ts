/**
 * How each notify sink has fared (last success and failure, counts), written by the sending daemon beside its
 * config (`.baton/<file>.<host>.notify.json`: run-record.ts says why there) for `status`. A file of its own, so a
 * sink's outcome never races the run record's writer.
 */
import { readRecord, recordPath, thisHost, writeRecord } from './run-record.js';

export interface SinkRecord {
  /** `name`, else the kind and its place in the list (`webhook 1`). */
  label: string;
  kind: 'webhook' | 'ntfy' | 'command';
  /** Where it sends, without what may be secret (a URL's path, an ntfy topic, a command's arguments). */
  target: string;
  events: string[];
  last_success: { at: string; event: string } | null;
  last_failure: { at: string; event: string; error: string } | null;
  sent: number;
  failed: number;
  /** Repeats folded into a later notification by the cooldown. */
  folded: number;
  /** Notifications dropped because the sink's queue was full (it was failing or slow for long). */
  dropped: number;
}

export interface NotifyRecord {
  pid: number;
  updated_at: string;
  sinks: SinkRecord[];
}

const notifyRecordPath = (configFile: string, host = thisHost()): string =>
  recordPath(configFile, host).replace(/\.json$/, '.notify.json');

export const writeNotifyRecord = (configFile: string, host: string, r: NotifyRecord): void =>
  writeRecord(notifyRecordPath(configFile, host), r);

export const readNotifyRecord = (configFile: string, host = thisHost()): NotifyRecord | null =>
  readRecord<NotifyRecord>(
    notifyRecordPath(configFile, host),
    (r) => typeof r.pid === 'number' && Array.isArray(r.sinks),
  );
