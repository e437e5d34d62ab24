/**
 * Where this conversation's dashboard is while `baton ui` runs in the project (`.baton/<file>.<host>.ui.json`:
 * run-record.ts says why there), for a notification's link. Never the access token: a notification may pass
 * through a server that is not the person's.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { pidAlive } from '../lib/process.js';
import { makeRecordDir, readRecord, recordPath } from './run-record.js';

const pathOf = (configFile: string, host: string) => recordPath(configFile, host).replace(/\.json$/, '.ui.json');

export function writeDashboardRecord(configFile: string, host: string, url: string): () => void {
  const file = pathOf(configFile, host);
  try {
    makeRecordDir(file);
    writeFileSync(file, `${JSON.stringify({ pid: process.pid, url })}\n`);
  } catch {
    return () => {}; // a folder it cannot write: a notification then links nowhere
  }
  return () => rmSync(file, { force: true });
}

/** The dashboard's address when one runs for this config on this machine, else null. */
export const dashboardUrl = (config: { file: string | null; host: string }): string | null =>
  config.file ? liveUrl(pathOf(config.file, config.host)) : null;

/** The `url` of the dashboard record `file` ({pid, url}) while its process runs, else null. */
export function liveUrl(file: string): string | null {
  const valid = (r: { pid?: unknown; url?: unknown }) => typeof r.pid === 'number' && typeof r.url === 'string';
  const r = readRecord(file, valid);
  return r && pidAlive(r.pid as number) ? (r.url as string) : null;
}
