/**
 * Commands through one long-lived control-mode client (control.ts; tmux-engine.ts says why). The client
 * attaches to a session, so while there is none to attach to — and for the moment after a failed attempt
 * (CONTROL_RETRY_MS) — commands go through one process each, as the process engine runs them. A command
 * with stdin always does: the control client has no stdin per command.
 */
import { ControlClient, type ControlReply } from './control.js';
import { endOrphans } from './orphans.js';
import type { ProcessEngine } from './process-engine.js';
import type { Buffered, ClientEnv, RunOptions, TmuxEngine, TmuxResult } from './tmux-engine.js';

/** How long to wait before trying to attach a control client again after a failed attempt. */
const CONTROL_RETRY_MS = 1000;

/** Attaching a client (ControlClient.connect, bound to the server): replaced by a fake in tests. */
export type Connect = () => Promise<Pick<ControlClient, 'alive' | 'run' | 'close'> | null>;

type Client = NonNullable<Awaited<ReturnType<Connect>>>;

/** A control client for the server `prefix` selects (a socket, or $TMUX when inside tmux). */
export function connectTmux(prefix: readonly string[], timeoutMs: number): Connect {
  return async () => {
    // Inside tmux, $TMUX names the server; the control client gets it as -S, and no $TMUX (attaching
    // with it set is refused as nesting).
    const { TMUX, ...env } = process.env;
    const argv = prefix.length ? prefix : TMUX ? ['-S', TMUX.split(',')[0]!] : [];
    const client = await ControlClient.connect(argv, env, timeoutMs);
    // A control client a killed daemon left attached is ended (orphans.ts); the delivery never waits for it.
    if (client) void endOrphans((a, ms) => client.run(a, ms), client.pid, timeoutMs).catch(() => {});
    return client;
  };
}

export class ControlEngine implements TmuxEngine {
  readonly kind = 'control';
  private client: Client | null = null;
  private connecting: Promise<Client | null> | null = null;
  private retryAt = 0;
  private closed = false;

  constructor(
    private readonly connect: Connect,
    /** While no client is attached. */
    private readonly processes: ProcessEngine,
    private readonly timeoutMs: number,
  ) {}

  async run(args: readonly string[], opts: RunOptions = {}): Promise<TmuxResult> {
    const client = opts.input === undefined ? await this.attached() : null;
    if (!client) return this.processes.run(args, opts);
    return fromReply(await client.run(args, opts.timeoutMs ?? this.timeoutMs));
  }

  async runIf(args: readonly string[]): Promise<TmuxResult> {
    const client = await this.attached();
    if (!client) return this.processes.runIf(args);
    return fromReply(await client.run(args, this.timeoutMs, 2));
  }

  /**
   * Both lines in one write (the client writes a tick's commands together), answered in order: one round
   * trip where a delivery's paste took two. The server runs the if-shell after the set-buffer, so its
   * condition is looked at when the keystroke is made, exactly as alone.
   */
  async setBufferThenIf(buffer: string, text: string, ifArgs: readonly string[]): Promise<Buffered> {
    const client = await this.attached();
    if (!client) return this.processes.setBufferThenIf(buffer, text, ifArgs);
    const [set, guarded] = await Promise.all([
      client.run(['set-buffer', '-b', buffer, '--', text], this.timeoutMs),
      client.run(ifArgs, this.timeoutMs, 2),
    ]);
    return { set: fromReply(set), guarded: fromReply(guarded) };
  }

  spawn(args: readonly string[], opts: RunOptions & { env?: ClientEnv } = {}): Promise<TmuxResult> {
    return this.processes.spawn(args, opts);
  }

  /** Detach the client for good: a late call gets a process, not a new client. */
  close(): void {
    this.closed = true;
    this.client?.close();
    this.client = null;
  }

  /** The attached control client, attaching one if none is (at most once per CONTROL_RETRY_MS). */
  private async attached(): Promise<Client | null> {
    if (this.closed) return null;
    if (this.client?.alive) return this.client;
    if (this.connecting) return this.connecting;
    if (performance.now() < this.retryAt) return null;
    this.connecting = this.connect().then((c) => {
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
}

function fromReply({ ok, output, lost }: ControlReply): TmuxResult {
  return { ok, stdout: ok ? output : '', stderr: ok ? '' : output, exitCode: ok ? 0 : 1, timedOut: lost };
}
