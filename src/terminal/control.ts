/**
 * One long-lived tmux control-mode client (`tmux -C attach-session -f ignore-size,no-output`). A command
 * sent through it costs ~0.2 ms, where every new tmux client process costs 3–6 ms (TECH.md §3g), and that
 * difference is most of a delivery's latency.
 *
 * Protocol facts this relies on (tmux 3.2+, checked on 3.3a):
 * - every command line gets exactly one `%begin T N F` … `%end T N F` (or `%error T N F`) block, in order,
 *   with F & 1 for commands this client sent — so commands are written one per line and matched FIFO;
 * - notifications (`%session-changed`, `%exit`, …) never come inside a block;
 * - an unattached control client exits after its command, so the client attaches to a session; with
 *   `ignore-size` it never resizes the agents' windows, with `no-output` it receives no pane output;
 * - arguments are parsed by tmux's own command parser, so each one is double-quoted with `\`, `"`, `$`, `~`,
 *   `#`, `;` and control characters escaped (`set-buffer` round-trips any text that way, megabytes included).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { CONTROL_ARGS } from './orphans.js';
import { UTF8 } from './tmux-engine.js';

export interface ControlReply {
  ok: boolean;
  output: string;
  /** The command's fate is unknown: it timed out or the client went away before the reply. */
  lost: boolean;
}

interface Waiting {
  resolve: (r: ControlReply) => void;
  /** When it is given up on (performance.now()), and the time it was given. */
  deadline: number;
  timeoutMs: number;
  /** Blocks this command line answers with: 2 for `if-shell -F` (its own, then the branch it ran). */
  blocks: number;
  outputs: string[];
}

const ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** One argument as tmux's command parser reads back exactly the same string. */
export function quoteArg(s: string): string {
  const body = s.replace(
    /[\n\r\t\\"$~#;\u0000-\u001f\u007f]/g,
    (c) => ESCAPES[c] ?? (c < ' ' || c === '\u007f' ? `\\${c.charCodeAt(0).toString(8).padStart(3, '0')}` : `\\${c}`),
  );
  return `"${body}"`;
}

export class ControlClient {
  private readonly waiting: Waiting[] = [];
  /** Command lines asked for in this tick, written together at its end. */
  private lines = '';
  /**
   * One timer for every command in flight, not one each: a setTimeout and a clearTimeout per command were
   * on every delivery's path (four commands a message). Unreferenced while nothing is in flight.
   */
  private watchdog: NodeJS.Timeout | null = null;
  private watchAt = Number.POSITIVE_INFINITY;
  private buffer = '';
  /** Output lines of the block being read, or null between blocks. */
  private block: string[] | null = null;
  private closed = false;

  private constructor(private readonly proc: ChildProcess) {}

  /**
   * Attach a control client to the server `argvPrefix` selects. Null when there is no server or no
   * session to attach to (the caller falls back to one process per command).
   */
  static async connect(
    argvPrefix: readonly string[],
    env: NodeJS.ProcessEnv,
    timeoutMs: number,
  ): Promise<ControlClient | null> {
    let proc: ChildProcess;
    try {
      const argv = [UTF8, ...argvPrefix, ...CONTROL_ARGS];
      proc = spawn('tmux', argv, { stdio: ['pipe', 'pipe', 'ignore'], env });
    } catch {
      return null;
    }
    const client = new ControlClient(proc);
    // The attach command's own block (F = 0) says whether it worked.
    const attached = new Promise<boolean>((resolve) => {
      client.onAttach = resolve;
      proc.once('error', () => resolve(false));
      proc.once('exit', () => resolve(false));
      setTimeout(() => resolve(false), timeoutMs).unref();
    });
    proc.stdout!.setEncoding('utf8');
    proc.stdout!.on('data', (chunk: string) => client.read(chunk));
    proc.once('exit', () => client.shut());
    proc.once('error', () => client.shut());
    proc.stdin!.on('error', () => client.shut());
    if (await attached) return client;
    client.close();
    return null;
  }

  private onAttach: ((ok: boolean) => void) | null = null;

  get alive(): boolean {
    return !this.closed;
  }

  get pid(): number | undefined {
    return this.proc.pid;
  }

  /**
   * Run one command; never rejects. `blocks`: how many %begin/%end blocks the line answers with — an
   * `if-shell -F` answers twice (its own block, then the branch it inserted right after it), unless its
   * own block is an error (then no branch ran).
   */
  run(args: readonly string[], timeoutMs: number, blocks = 1): Promise<ControlReply> {
    if (this.closed) return Promise.resolve({ ok: false, output: 'tmux control client is closed', lost: false });
    return new Promise((resolve) => {
      this.waiting.push({ resolve, deadline: performance.now() + timeoutMs, timeoutMs, blocks, outputs: [] });
      this.watch(timeoutMs);
      // Commands asked for in the same tick (a paste's set-buffer and its guarded paste-buffer) go in one write.
      if (this.lines === '') process.nextTick(() => this.flush());
      this.lines += `${args.map(quoteArg).join(' ')}\n`;
    });
  }

  private flush(): void {
    const lines = this.lines;
    this.lines = '';
    if (lines !== '' && !this.closed) this.proc.stdin!.write(lines);
  }

  /**
   * Give up on a hung server: every command after the one it does not answer is stuck behind it, so the
   * client is dropped (all in flight are reported lost) and the next command starts a new one.
   */
  private watch(ms: number): void {
    const at = performance.now() + ms;
    if (this.watchdog && at >= this.watchAt) {
      this.watchdog.ref();
      return;
    }
    if (this.watchdog) clearTimeout(this.watchdog);
    this.watchAt = at;
    this.watchdog = setTimeout(() => {
      this.watchdog = null;
      const now = performance.now();
      const late = this.waiting.find((w) => w.deadline <= now);
      if (late) return this.close(`tmux did not answer within ${late.timeoutMs} ms`);
      if (this.waiting.length) this.watch(Math.min(...this.waiting.map((w) => w.deadline)) - now);
    }, ms);
  }

  close(why = 'tmux control client closed'): void {
    if (!this.closed) this.proc.kill('SIGKILL');
    this.shut(why);
  }

  private shut(why = 'tmux control client exited'): void {
    this.closed = true;
    this.onAttach?.(false);
    this.onAttach = null;
    if (this.watchdog) clearTimeout(this.watchdog);
    this.watchdog = null;
    for (const w of this.waiting.splice(0)) w.resolve({ ok: false, output: why, lost: true });
  }

  private read(chunk: string): void {
    const text = this.buffer + chunk;
    let start = 0;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
      this.line(text.slice(start, nl));
      start = nl + 1;
    }
    this.buffer = text.slice(start);
  }

  private header: string | null = null;

  private line(line: string): void {
    if (this.block) {
      const end = line.charCodeAt(0) === 37 /* % */ ? /^%(end|error) (\d+ \d+ \d+)$/.exec(line) : null;
      if (end && end[2] === this.header) {
        const output = this.block.join('\n');
        this.block = null;
        const flags = Number(end[2].split(' ')[2]);
        if (!(flags & 1)) {
          this.onAttach?.(end[1] === 'end');
          this.onAttach = null;
          return;
        }
        const w = this.waiting[0];
        if (!w) return;
        w.outputs.push(output);
        if (end[1] === 'end' && w.outputs.length < w.blocks) return; // the branch's block comes next
        this.waiting.shift();
        if (this.waiting.length === 0) this.watchdog?.unref(); // nothing in flight: no reason to stay alive
        w.resolve({ ok: end[1] === 'end', output, lost: false });
      } else {
        this.block.push(line);
      }
      return;
    }
    const begin = /^%begin (\d+ \d+ \d+)$/.exec(line);
    if (begin) {
      this.header = begin[1]!;
      this.block = [];
    } else if (line === '%exit' || line.startsWith('%exit ')) {
      this.close('the tmux control client was detached');
    }
    // Other notifications (%session-changed, %sessions-changed, …) need nothing.
  }
}
