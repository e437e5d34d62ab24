/**
 * A thin typed driver for the tmux command line. Every call has a timeout, so a hung tmux client can
 * never hang the daemon. The server is the default one unless BATON_TMUX_SOCKET names one (`tmux -L`);
 * TMUX_TMPDIR is honoured by tmux itself.
 */
import { execa } from 'execa';

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
}

export class Tmux {
  readonly socket: string | undefined;
  readonly timeoutMs: number;

  constructor(opts: TmuxOptions = {}) {
    this.socket = opts.socket ?? (process.env.BATON_TMUX_SOCKET || undefined);
    this.timeoutMs = opts.timeoutMs ?? 5000;
  }

  /** The argv prefix that selects this server, for printing commands a person can run. */
  get prefix(): string[] {
    return this.socket ? ['-L', this.socket] : [];
  }

  async run(args: readonly string[], opts: { input?: string; timeoutMs?: number } = {}): Promise<TmuxResult> {
    const r = await execa('tmux', [...this.prefix, ...args], {
      input: opts.input ?? '',
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
  async newSession(o: { name: string; cwd: string; command: string; env: Record<string, string>; owner: string }): Promise<TmuxResult> {
    const envArgs = Object.entries(o.env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    // remain-on-exit: a dead agent stays visible as a dead pane instead of vanishing with its session.
    return this.run([
      'new-session', '-d', '-s', o.name, '-c', o.cwd, '-x', '200', '-y', '50', ...envArgs, o.command,
      ';', 'set-option', '-t', `=${o.name}:`, 'remain-on-exit', 'on',
      // Pin the agent's pane: messages go to it even if someone splits the window later.
      ';', 'set-option', '-F', '-t', `=${o.name}:`, '@baton_pane', '#{pane_id}',
      ';', 'set-option', '-t', `=${o.name}:`, '@baton_config', o.owner,
    ]);
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

  async killSession(name: string): Promise<boolean> {
    return (await this.run(['kill-session', '-t', `=${name}`])).ok;
  }
}
