/**
 * config.json changing while the daemon runs: what can change live is applied (config/reload-plan.ts), what only a
 * restart applies is said, and an invalid file keeps the last good config — in the log, as an event, and in the run
 * record `status` reads (config/run-record.ts).
 * A stat at each rescan (every 2 s), not fs.watch: editors save by renaming a temp file over the old one, which a
 * watch on the file loses (its inode is gone) and one on the folder reports as several events to debounce; fs.watch
 * is also silent on network filesystems. The file is read (and hashed) only when its stat changed.
 */
import { readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { EventLog } from '../bus/events.js';
import { type Config, ConfigError } from '../config/config.js';
import { configFromText } from '../config/load.js';
import { applyLive, reloadPlan, runningSettings } from '../config/reload-plan.js';
import { textHash, writeRunRecord, type RunRecord } from '../config/run-record.js';
import type { Uses } from './context.js';

/** The running config's live part is changed in place (the daemon's parts read it at each use). */
export interface ReloadParts extends Uses<'config' | 'log'> {
  events: EventLog;
  /** How many conversations this process serves. */
  serves: number;
  /** The live part changed: the daemon plans again (reminders, a limit reached now). */
  applied(): Promise<void>;
}

export class ConfigWatch {
  /** The file's stat when last looked at: unchanged, nothing is read. */
  private stamp = '';
  private seen: string | null = null;
  private restart: string[] = [];
  private invalid: string | null = null;
  private readonly startedAt = new Date().toISOString();
  private recordFailed = false;

  constructor(private readonly p: ReloadParts) {}

  /** Look at the file; reload it if its text changed since it was last read. */
  async check(): Promise<void> {
    const file = this.p.config.file;
    if (!file) return; // the embedded default: nothing to watch
    let text: string | null = null;
    let stamp = 'unreadable';
    try {
      const st = statSync(file);
      stamp = `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
      if (stamp === this.stamp) return;
      text = readFileSync(file, 'utf8');
    } catch (err) {
      if (stamp === this.stamp) return;
      this.stamp = stamp;
      this.rejected(file, `${file}: cannot read it (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
      return this.publish();
    }
    this.stamp = stamp;
    const hash = textHash(text);
    if (hash === this.seen) return;
    const first = this.seen === null;
    this.seen = hash;
    let next: Config;
    try {
      next = configFromText(text, { file, baseDir: dirname(file) });
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      this.rejected(file, err.line);
      return this.publish();
    }
    this.invalid = null;
    const plan = reloadPlan(this.p.config, next);
    this.restart = plan.restart;
    if (plan.live.length) applyLive(this.p.config, next);
    if (plan.live.length || plan.restart.length || !first) {
      const { log } = this.p;
      if (plan.live.length) log.info(`${file} changed: applied ${plan.live.join(', ')}`);
      if (plan.restart.length)
        log.warn(`${file} changed: restart to apply ${plan.restart.join(', ')} (the daemon runs as it was started)`);
      await this.p.events.emit('config_reloaded', { config: file, applied: plan.live, restart: plan.restart });
    }
    this.publish();
    if (plan.live.length) await this.p.applied();
  }

  private rejected(file: string, error: string): void {
    this.invalid = error;
    this.p.log.warn(`config not reloaded, the daemon keeps its last good config: ${error}`);
    void this.p.events.emit('config_rejected', { config: file, error });
  }

  /** Write the run record; a failure is said once (status then has no record to compare with). */
  private publish(): void {
    const c = this.p.config;
    if (!c.file) return;
    const record: RunRecord = {
      config: c.file,
      host: c.host,
      message_dir: c.messageDir,
      bus: c.bus.kind,
      daemon: { pid: process.pid, started_at: this.startedAt, serves: this.p.serves },
      seen: this.seen,
      running: runningSettings(c),
      restart: this.restart,
      invalid: this.invalid,
      updated_at: new Date().toISOString(),
    };
    try {
      writeRunRecord(record);
      this.recordFailed = false;
    } catch (err) {
      if (!this.recordFailed) this.p.log.warn(`cannot write what the daemon runs beside ${c.file}: ${String(err)}`);
      this.recordFailed = true;
    }
  }
}
