/**
 * How commands reach the tmux server, as two engines behind one interface (libtmux keeps its engines
 * apart the same way): one long-lived control-mode client (control-engine.ts), or one tmux process per
 * command (process-engine.ts). `Tmux` picks one when it is made (engineFor) and never branches per call.
 *
 * Why two: a command through the control client costs ~0.2 ms where a new tmux process costs 3–6 ms (most
 * of a delivery's latency, TECH.md §3g) — worth it for the daemon and the dashboard, which stay up; a
 * short-lived CLI command would pay for attaching a client it uses once or twice.
 */

export interface TmuxResult {
  ok: boolean;
  stdout: string;
  stderr: string;
  exitCode: number | undefined;
  timedOut: boolean;
}

/**
 * What the tmux process gets beside this process's own environment; a variable set to undefined is not
 * passed on at all (a server that process starts never holds it).
 */
/** What setBufferThenIf got: the set-buffer's result, and the guarded line's (null: not sent). */
export type Buffered = { set: TmuxResult; guarded: TmuxResult | null };

export type ClientEnv = Record<string, string | undefined>;

export interface RunOptions {
  /** Text for the command's stdin (a process is needed for it: the control client has no stdin per command). */
  input?: string;
  timeoutMs?: number;
}

export interface TmuxEngine {
  readonly kind: 'control' | 'process';
  run(args: readonly string[], opts?: RunOptions): Promise<TmuxResult>;
  /** An `if-shell -F` line: it answers with its own block and then the branch it ran. */
  runIf(args: readonly string[]): Promise<TmuxResult>;
  /**
   * Put `text` in a named buffer (a quoted `set-buffer` argument through the control client, stdin
   * otherwise), then run an `if-shell -F` line (`ifArgs`, which may paste it) right after it, in the server's
   * order. `guarded` is null when the buffer was not set and the line was not sent. The only way text goes
   * into a pane: guarded (terminal/fence.ts), by the typing pipeline (daemon/pipeline.ts).
   */
  setBufferThenIf(buffer: string, text: string, ifArgs: readonly string[]): Promise<Buffered>;
  /**
   * A command in a tmux process of its own, whatever the engine: `new-session` takes the environment
   * (PATH) of the client that asks for it.
   */
  spawn(args: readonly string[], opts?: RunOptions & { env?: ClientEnv }): Promise<TmuxResult>;
  /** Detach the control client for good (nothing to do for processes). */
  close(): void;
}

/** Which engine a `Tmux` uses: the control client when asked for and not turned off (BATON_TMUX_CONTROL=0). */
export function engineFor(wanted: boolean, env: NodeJS.ProcessEnv = process.env): TmuxEngine['kind'] {
  return wanted && env.BATON_TMUX_CONTROL !== '0' ? 'control' : 'process';
}

/**
 * `-u`: the client speaks UTF-8 whatever the locale. In a C/POSIX locale — a systemd service's environment,
 * cron — tmux turned every tab of `display-message -p` into `_`, so no pane's fields parsed and a daemon
 * started at boot found no pane at all ("there is no pane"), forever.
 */
export const UTF8 = '-u';
