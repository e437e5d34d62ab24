/**
 * A thin typed driver for the tmux command line. Every call has a timeout, so a hung tmux client can
 * never hang the daemon. The server is the default one unless BATON_TMUX_SOCKET names one (`tmux -L`);
 * TMUX_TMPDIR is honoured by tmux itself.
 *
 * With `control: true` (the daemon) commands go through one long-lived control-mode client
 * (control.ts) while one can be attached, and through one tmux process per command otherwise.
 */
import { execa } from 'execa';
import { endGroups } from '../lib/process.js';
import { shellQuote } from '../lib/shell.js';
import { ControlClient } from './control.js';

export interface TmuxResult {
  ok: boolean;
  stdout: string;
  stderr: string;
  exitCode: number | undefined;
  timedOut: boolean;
}

export interface TmuxOptions {
  /** `tmux -L <socket>`; default: $BATON_TMUX_SOCKET, else tmux's own default. */
  socket?: string | undefined;
  timeoutMs?: number;
  /** Use a control-mode client when a session exists to attach it to (default false: short-lived CLIs). */
  control?: boolean;
}

/** What the `otherwise` branch of runIf() prints first. */
export const SKIPPED = 'baton-skipped';

/** How long to wait before trying to attach a control client again after a failed attempt. */
const CONTROL_RETRY_MS = 1000;

export class Tmux {
  readonly socket: string | undefined;
  readonly timeoutMs: number;
  private readonly useControl: boolean;
  private client: ControlClient | null = null;
  private connecting: Promise<ControlClient | null> | null = null;
  private retryAt = 0;
  private closed = false;

  constructor(opts: TmuxOptions = {}) {
    this.socket = opts.socket ?? (process.env.BATON_TMUX_SOCKET || undefined);
    this.timeoutMs = opts.timeoutMs ?? 5000;
    this.useControl = (opts.control ?? false) && process.env.BATON_TMUX_CONTROL !== '0';
  }

  /** The argv prefix that selects this server, for printing commands a person can run. */
  get prefix(): string[] {
    return this.socket ? ['-L', this.socket] : [];
  }

  async run(args: readonly string[], opts: { input?: string; timeoutMs?: number } = {}): Promise<TmuxResult> {
    const client = opts.input === undefined ? await this.control() : null;
    if (client) return fromReply(await client.run(args, opts.timeoutMs ?? this.timeoutMs));
    return this.spawn(args, opts);
  }

  /**
   * Run `then` only if `condition` (a format, evaluated on `target` inside the tmux server, in the same
   * step as the command itself — nothing can come between the check and the keystroke) expands to 1;
   * else `otherwise`. `ran` says which, from what the branch printed: `otherwise` must print a line
   * starting with SKIPPED, `then` must print nothing. `target` missing: `ran` is 'error'.
   */
  async runIf(
    target: string | null,
    condition: string,
    then: string,
    otherwise: string,
  ): Promise<{ ran: 'then' | 'otherwise' | 'error'; output: string; timedOut: boolean }> {
    const args = ['if-shell', '-F', ...(target ? ['-t', target] : []), condition, then, otherwise];
    const client = await this.control();
    const r = client ? fromReply(await client.run(args, this.timeoutMs, 2)) : await this.spawn(args, {});
    if (!r.ok) return { ran: 'error', output: r.stderr || r.stdout, timedOut: r.timedOut };
    const out = r.stdout.trim();
    return { ran: out.startsWith(SKIPPED) ? 'otherwise' : 'then', output: out, timedOut: false };
  }

  /** Put `text` in a named buffer: a quoted `set-buffer` argument through the control client, stdin otherwise. */
  async setBuffer(buffer: string, text: string): Promise<TmuxResult> {
    const client = await this.control();
    if (!client) return this.spawn(['load-buffer', '-b', buffer, '-'], { input: text });
    return fromReply(await client.run(['set-buffer', '-b', buffer, '--', text], this.timeoutMs));
  }

  /**
   * Put `text` in a named buffer and paste it into `target` with `pasteFlags`, deleting the buffer.
   * Through the control client the text travels as a quoted argument (`set-buffer`); otherwise through
   * stdin (`load-buffer -`), both steps in one tmux process.
   */
  async pasteText(buffer: string, text: string, target: string, pasteFlags: readonly string[]): Promise<TmuxResult> {
    const pasteCmd = ['paste-buffer', ...pasteFlags, '-d', '-b', buffer, '-t', target];
    const client = await this.control();
    if (!client) return this.spawn(['load-buffer', '-b', buffer, '-', ';', ...pasteCmd], { input: text });
    // Both lines are written at once; if set-buffer fails, paste-buffer fails too (no such buffer).
    const timeoutMs = this.timeoutMs;
    const [set, pasted] = await Promise.all([
      client.run(['set-buffer', '-b', buffer, '--', text], timeoutMs),
      client.run(pasteCmd, timeoutMs),
    ]);
    return set.ok || set.lost ? fromReply(pasted) : fromReply(set);
  }

  /** Detach the control client for good (the daemon and the dashboard call this when they stop). */
  close(): void {
    this.closed = true;
    this.client?.close();
    this.client = null;
  }

  /** The attached control client, attaching one if none is (at most once per CONTROL_RETRY_MS). */
  private async control(): Promise<ControlClient | null> {
    if (!this.useControl || this.closed) return null; // closed: a late call gets a process, not a new client
    if (this.client?.alive) return this.client;
    if (this.connecting) return this.connecting;
    if (performance.now() < this.retryAt) return null;
    // Inside tmux, $TMUX names the server; the control client gets it as -S, and no $TMUX (attaching
    // with it set is refused as nesting).
    const { TMUX, ...env } = process.env;
    const prefix = this.socket ? this.prefix : TMUX ? ['-S', TMUX.split(',')[0]!] : [];
    this.connecting = ControlClient.connect(prefix, env, this.timeoutMs).then((c) => {
      if (this.closed) {
        c?.close(); // closed while it attached
        c = null;
      }
      this.client = c;
      this.connecting = null;
      if (!c) this.retryAt = performance.now() + CONTROL_RETRY_MS;
      return c;
    });
    return this.connecting;
  }

  private async spawn(
    args: readonly string[],
    opts: { input?: string; timeoutMs?: number; env?: Record<string, string> },
  ): Promise<TmuxResult> {
    const r = await execa('tmux', [...this.prefix, ...args], {
      input: opts.input ?? '',
      ...(opts.env ? { env: opts.env } : {}),
      timeout: opts.timeoutMs ?? this.timeoutMs,
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
  }

  /** `tmux 3.3a`, or null when tmux is not installed. */
  async version(): Promise<string | null> {
    const r = await execa('tmux', ['-V'], { reject: false, timeout: this.timeoutMs });
    return r.exitCode === 0 ? String(r.stdout).trim() : null;
  }

  /** Sessions are always matched exactly (`=name`), never by prefix. */
  async hasSession(name: string): Promise<boolean> {
    return (await this.run(['has-session', '-t', `=${name}`])).ok;
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
    pasteTracker?: string;
  }): Promise<TmuxResult> {
    const envArgs = Object.entries(o.env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    // The bracketed-paste tracker (scripts/paste-mode.pl) is attached in this same command list, before
    // tmux reads anything the program writes, so it sees every switch; a fresh terminal starts with it off.
    const tracker = o.pasteTracker ? [';', ...pasteTrackerCommands(o.name, o.pasteTracker)] : [];
    // remain-on-exit: a dead agent stays visible as a dead pane instead of vanishing with its session.
    // tmux gives a new session the PATH of the client that asks for it, whatever `-e PATH=` says (spawn.c:
    // "otherwise running `tmux new myprogram` wouldn't work"): so the client itself runs with that PATH.
    return this.spawn(
      [
        'new-session',
        '-d',
        '-s',
        o.name,
        '-c',
        o.cwd,
        '-x',
        '200',
        '-y',
        '50',
        ...envArgs,
        o.command,
        ';',
        'set-option',
        '-t',
        `=${o.name}:`,
        'remain-on-exit',
        'on',
        // Pin the agent's pane: messages go to it even if someone splits the window later.
        ';',
        'set-option',
        '-F',
        '-t',
        `=${o.name}:`,
        '@baton_pane',
        '#{pane_id}',
        ';',
        'set-option',
        '-t',
        `=${o.name}:`,
        '@baton_config',
        o.owner,
        // The bundled demo agent stands in for the configured kind: its screen is not that kind's.
        ...(o.demo ? [';', 'set-option', '-t', `=${o.name}:`, '@baton_demo', '1'] : []),
        ...tracker,
      ],
      o.env.PATH ? { env: { PATH: o.env.PATH } } : {},
    );
  }

  /** Every session name → its owner (@baton_config; empty when baton did not start it). */
  async sessions(): Promise<Map<string, { owner: string }>> {
    const r = await this.run(['list-sessions', '-F', '#{session_name}\t#{@baton_config}']);
    const out = new Map<string, { owner: string }>();
    if (!r.ok) return out;
    for (const line of r.stdout.split('\n').filter(Boolean)) {
      const [name = '', owner = ''] = line.split('\t');
      out.set(name, { owner });
    }
    return out;
  }

  /**
   * Kill a session, and the programs of its panes with it: tmux only hangs up their terminal, and a
   * program that ignores the hangup lives on without one (Gemini CLI 0.61 does: `baton down` left it
   * running, ~250 MB each). Those get SIGTERM, then SIGKILL, to their process group — only the panes of
   * this session, by the pids tmux names.
   */
  async killSession(name: string): Promise<boolean> {
    const panes = await this.run(['list-panes', '-s', '-t', `=${name}`, '-F', '#{pane_pid}']);
    const pids = panes.ok
      ? panes.stdout
          .split('\n')
          .map(Number)
          .filter((n) => n > 1)
      : [];
    const killed = (await this.run(['kill-session', '-t', `=${name}`])).ok;
    if (killed && pids.length) await endGroups(pids);
    return killed;
  }
}

function fromReply(r: { ok: boolean; output: string; lost: boolean }): TmuxResult {
  return {
    ok: r.ok,
    stdout: r.ok ? r.output : '',
    stderr: r.ok ? '' : r.output,
    exitCode: r.ok ? 0 : 1,
    timedOut: r.lost,
  };
}

/**
 * The tmux commands that attach the bracketed-paste tracker (`tracker`: scripts/paste-mode.pl) to session
 * `name`'s pane, `@baton_paste` off until it sees the program ask — for `newSession`, and for the benches,
 * which start their panes as `baton up` does.
 */
export function pasteTrackerCommands(name: string, tracker: string): string[] {
  return [
    'set-option',
    '-p',
    '-t',
    `=${name}:`,
    '@baton_paste',
    'off',
    ';',
    'pipe-pane',
    '-O',
    '-t',
    `=${name}:`,
    `exec perl ${shellQuote(tracker)} '#{socket_path}' '#{pane_id}'`,
  ];
}
