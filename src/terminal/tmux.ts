/**
 * A thin typed driver for the tmux command line. Every call has a timeout, so a hung tmux client can
 * never hang the daemon. The server is the default one unless BATON_TMUX_SOCKET names one (`tmux -L`);
 * TMUX_TMPDIR is honoured by tmux itself.
 *
 * Commands reach the server through one engine (tmux-engine.ts), chosen once, here: with `control: true`
 * (the daemon, the dashboard) one long-lived control-mode client (control-engine.ts), else one tmux
 * process per command (process-engine.ts).
 */
import { execa } from 'execa';
import { endGroups } from '../lib/process.js';
import { shellQuote } from '../lib/shell.js';
import { connectTmux, ControlEngine } from './control-engine.js';
import { execTmux, ProcessEngine } from './process-engine.js';
import { engineFor, type RunOptions, type TmuxEngine, type TmuxResult } from './tmux-engine.js';

export type { TmuxResult } from './tmux-engine.js';

export interface TmuxOptions {
  /** `tmux -L <socket>`; default: $BATON_TMUX_SOCKET, else tmux's own default. */
  socket?: string | undefined;
  /** `tmux -S <path>`: a server by its socket's path (as `baton up` recorded it); wins over `socket`. */
  socketPath?: string | undefined;
  timeoutMs?: number;
  /** Use a control-mode client when a session exists to attach it to (default false: short-lived CLIs). */
  control?: boolean;
}

/** What the `otherwise` branch of runIf() prints first. */
export const SKIPPED = 'baton-skipped';

/** Which branch of an `if-shell -F` ran, from what it printed (Tmux.runIf). */
export interface IfOutcome {
  ran: 'then' | 'otherwise' | 'error';
  output: string;
  timedOut: boolean;
}

function ifOutcome(r: TmuxResult): IfOutcome {
  if (!r.ok) return { ran: 'error', output: r.stderr || r.stdout, timedOut: r.timedOut };
  const out = r.stdout.trim();
  return { ran: out.startsWith(SKIPPED) ? 'otherwise' : 'then', output: out, timedOut: false };
}

const ifArgs = (target: string | null, ...branches: [condition: string, then: string, otherwise: string]) => [
  ...['if-shell', '-F', ...(target ? ['-t', target] : [])],
  ...branches,
];

export class Tmux {
  readonly socket: string | undefined;
  readonly socketPath: string | undefined;
  readonly timeoutMs: number;
  readonly engine: TmuxEngine;

  constructor(opts: TmuxOptions = {}) {
    this.socket = opts.socket ?? (process.env.BATON_TMUX_SOCKET || undefined);
    this.socketPath = opts.socketPath;
    this.timeoutMs = opts.timeoutMs ?? 5000;
    const processes = new ProcessEngine(execTmux(this.prefix), this.timeoutMs);
    this.engine =
      engineFor(opts.control ?? false) === 'control'
        ? new ControlEngine(connectTmux(this.prefix, this.timeoutMs), processes, this.timeoutMs)
        : processes;
  }

  /** The argv prefix that selects this server, for printing commands a person can run. */
  get prefix(): string[] {
    if (this.socketPath) return ['-S', this.socketPath];
    return this.socket ? ['-L', this.socket] : [];
  }

  run(args: readonly string[], opts: RunOptions = {}): Promise<TmuxResult> {
    return this.engine.run(args, opts);
  }

  /**
   * Run `then` only if `condition` (a format, evaluated on `target` inside the tmux server, in the same
   * step as the command itself — nothing can come between the check and the keystroke) expands to 1;
   * else `otherwise`. `ran` says which, from what the branch printed: `otherwise` must print a line
   * starting with SKIPPED, `then` must print nothing. `target` missing: `ran` is 'error'.
   */
  async runIf(target: string | null, condition: string, then: string, otherwise: string): Promise<IfOutcome> {
    return ifOutcome(await this.engine.runIf(ifArgs(target, condition, then, otherwise)));
  }

  /**
   * Put `text` in a named buffer, then runIf (`command` pastes it; `skipped` is the refusing branch), in the same round
   * trip where the engine allows. `guarded` is null when the buffer could not be set and nothing else was sent.
   */
  async setBufferThenIf(
    buffer: string,
    text: string,
    guarded: { target: string; condition: string; command: string; skipped: string },
  ): Promise<{ set: TmuxResult; guarded: IfOutcome | null }> {
    const { target, condition, command, skipped } = guarded;
    const r = await this.engine.setBufferThenIf(buffer, text, ifArgs(target, condition, command, skipped));
    return { set: r.set, guarded: r.guarded ? ifOutcome(r.guarded) : null };
  }

  /** Detach the control client for good (the daemon and the dashboard call this when they stop). */
  close(): void {
    this.engine.close();
  }

  /** `tmux 3.3a`, or null when tmux is not installed. */
  async version(): Promise<string | null> {
    const r = await execa('tmux', ['-V'], { reject: false, timeout: this.timeoutMs });
    return r.exitCode === 0 ? String(r.stdout).trim() : null;
  }

  /**
   * Start a detached session. `owner` (the conversation's message_dir) is kept as the session option
   * @baton_config, so `up` and `down` only ever adopt or kill their own conversation's sessions.
   */
  async newSession(o: {
    name: string;
    cwd: string;
    command: string;
    env: Record<string, string>;
    owner: string;
    demo?: boolean;
    /** How the agent's client was started (`resumed`, `fresh`): session option @baton_start (terminal/pane.ts). */
    start?: string;
    pasteTracker?: string;
    /**
     * Variables the tmux client that asks for the session does not pass on: when that client starts the
     * tmux server, the server's global environment — which every pane inherits — never holds them.
     */
    withhold?: readonly string[];
  }): Promise<TmuxResult> {
    const envArgs = Object.entries(o.env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    // The bracketed-paste tracker (scripts/paste-mode.pl) is attached in this same command list, before
    // tmux reads anything the program writes, so it sees every switch; a fresh terminal starts with it off.
    const tracker = o.pasteTracker ? [';', ...pasteTrackerCommands(o.name, o.pasteTracker)] : [];
    // remain-on-exit: a dead agent stays visible as a dead pane instead of vanishing with its session.
    // tmux gives a new session the PATH of the client that asks for it, whatever `-e PATH=` says (spawn.c:
    // "otherwise running `tmux new myprogram` wouldn't work"): so the client itself runs with that PATH.
    const target = `=${o.name}:`;
    const withheld = Object.fromEntries((o.withhold ?? []).map((k) => [k, undefined]));
    const set = (option: string, value: string) => [';', 'set-option', '-t', target, option, value];
    return this.engine.spawn(
      [
        ...['new-session', '-d', '-s', o.name, '-c', o.cwd, '-x', '200', '-y', '50', ...envArgs, o.command],
        ...set('remain-on-exit', 'on'),
        // Pin the agent's pane: messages go to it even if someone splits the window later.
        ...[';', 'set-option', '-F', '-t', target, '@baton_pane', '#{pane_id}'],
        ...set('@baton_config', o.owner),
        // The bundled demo agent stands in for the configured kind: its screen is not that kind's.
        ...(o.demo ? set('@baton_demo', '1') : []),
        ...(o.start ? set('@baton_start', o.start) : []),
        ...tracker,
      ],
      { env: { ...withheld, ...(o.env.PATH ? { PATH: o.env.PATH } : {}) } },
    );
  }

  /** Every session name → its owner (@baton_config; empty when baton did not start it). */
  async sessions(): Promise<Map<string, { owner: string }>> {
    const r = await this.run(['list-sessions', '-F', '#{session_name}\t#{@baton_config}']);
    const rows = r.ok ? r.stdout.split('\n').filter(Boolean) : [];
    return new Map(rows.map((l) => l.split('\t')).map(([name = '', owner = '']) => [name, { owner }]));
  }

  /**
   * Kill a session, and the programs of its panes with it: tmux only hangs up their terminal, and a program that
   * ignores the hangup lives on without one (Gemini CLI 0.61 does: `baton down` left it running, ~250 MB each). Those
   * get SIGTERM, then SIGKILL, to their process group — only the panes of this session, by the pids tmux names.
   */
  async killSession(name: string): Promise<boolean> {
    const panes = await this.run(['list-panes', '-s', '-t', `=${name}`, '-F', '#{pane_pid}']);
    const pids = (panes.ok ? panes.stdout.split('\n') : []).map(Number).filter((n) => n > 1);
    const killed = (await this.run(['kill-session', '-t', `=${name}`])).ok;
    if (killed && pids.length) await endGroups(pids);
    return killed;
  }
}

/**
 * The tmux commands that attach the bracketed-paste tracker (`tracker`: scripts/paste-mode.pl) to session
 * `name`'s pane, `@baton_paste` off until it sees the program ask — for `newSession`, and for the benches,
 * which start their panes as `baton up` does.
 */
export function pasteTrackerCommands(name: string, tracker: string): string[] {
  const [t, pipe] = [`=${name}:`, `exec perl ${shellQuote(tracker)} '#{socket_path}' '#{pane_id}'`];
  return ['set-option', '-p', '-t', t, '@baton_paste', 'off', ';', 'pipe-pane', '-O', '-t', t, pipe];
}
