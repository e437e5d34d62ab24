/**
 * How each notify sink has fared (last success and failure, counts), written by the sending daemon beside its
 * config (`.baton/<file>.<host>.notify.json`: run-record.ts says why there) for `status`. A file of its own, so a
 * sink's outcome never races the run record's writer.
 */
import { readRecord, recordPath, thisHost, writeRecord } from './run-record.js';
import type { SinkRecord } from './sink-record.js';

export type { SinkRecord };

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
