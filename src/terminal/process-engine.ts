/**
 * One tmux process per command (tmux-engine.ts): what a short-lived CLI command uses, and what the
 * control engine falls back to while no client can be attached. Text for a buffer travels through stdin
 * (`load-buffer -`), so no argument quoting is involved; a paste is both steps in one process.
 */
import { execa } from 'execa';
import type { Buffered, ClientEnv, RunOptions, TmuxEngine, TmuxResult } from './tmux-engine.js';
import { UTF8 } from './tmux-engine.js';

/** What running one tmux process needs (execa's answer, narrowed): replaced by a recording fake in tests. */
export type Exec = (
  args: readonly string[],
  opts: { input: string; timeoutMs: number; env?: ClientEnv },
) => Promise<TmuxResult>;

export function execTmux(prefix: readonly string[]): Exec {
  return async (args, opts) => {
    const r = await execa('tmux', [UTF8, ...prefix, ...args], {
      input: opts.input,
      ...(opts.env ? { env: opts.env } : {}),
      timeout: opts.timeoutMs,
      forceKillAfterDelay: 500,
      reject: false,
      stripFinalNewline: true,
    });
    return {
      ok: r.exitCode === 0 && !r.timedOut,
      stdout: String(r.stdout ?? ''),
      stderr: String(r.stderr ?? ''),
      exitCode: r.exitCode,
      timedOut: Boolean(r.timedOut),
    };
  };
}

export class ProcessEngine implements TmuxEngine {
  readonly kind = 'process';

  constructor(
    private readonly exec: Exec,
    private readonly timeoutMs: number,
  ) {}

  run(args: readonly string[], opts: RunOptions = {}): Promise<TmuxResult> {
    return this.spawn(args, opts);
  }

  runIf(args: readonly string[]): Promise<TmuxResult> {
    return this.spawn(args);
  }

  /** Two processes, one after the other: the condition is looked at once the buffer is there. */
  async setBufferThenIf(buffer: string, text: string, ifArgs: readonly string[]): Promise<Buffered> {
    const set = await this.spawn(['load-buffer', '-b', buffer, '-'], { input: text });
    return { set, guarded: set.ok ? await this.runIf(ifArgs) : null };
  }

  spawn(args: readonly string[], opts: RunOptions & { env?: ClientEnv } = {}): Promise<TmuxResult> {
    return this.exec(args, {
      input: opts.input ?? '',
      timeoutMs: opts.timeoutMs ?? this.timeoutMs,
      ...(opts.env ? { env: opts.env } : {}),
    });
  }

  close(): void {}
}
