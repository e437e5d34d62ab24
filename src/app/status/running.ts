/** `status`: what this machine's daemon runs (config/run-record.ts), against the config file as it is now. */
import type { Config } from '../../config/config.js';
import { diskHash, readRunRecord } from '../../config/run-record.js';
import { pidAlive } from '../../lib/process.js';
import type { RunningConfig } from './report.js';

export function runningConfig(config: Pick<Config, 'file' | 'host'>): RunningConfig | null {
  if (!config.file) return null;
  const r = readRunRecord(config.file, config.host);
  if (!r || !pidAlive(r.daemon.pid)) return null;
  const turns = (r.running.turns ?? {}) as Record<string, unknown>;
  let file: RunningConfig['file'];
  if (r.seen !== diskHash(config.file)) file = { state: 'unread' };
  else if (r.invalid) file = { state: 'invalid', error: r.invalid };
  else if (r.restart.length) file = { state: 'restart', keys: r.restart };
  else file = { state: 'same' };
  return { pid: r.daemon.pid, turns, file };
}

/** The one line `status` adds under `config` when the file is not what the daemon runs, or null. */
export function runningConfigLine(r: RunningConfig | null): string | null {
  if (!r || r.file.state === 'same') return null;
  if (r.file.state === 'unread') return 'changed on disk; the daemon has not read it yet (it looks every 2 s)';
  if (r.file.state === 'invalid') return `not loaded, the daemon runs its last good config: ${r.file.error}`;
  return `changed: restart to apply ${r.file.keys.join(', ')} (the daemon runs what it started with: baton down, baton up)`;
}
