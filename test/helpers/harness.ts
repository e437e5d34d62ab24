/**
 * Test harness: a private tmux server (its own TMUX_TMPDIR, so the user's server is never touched),
 * a temp project with config.json, recorder panes, and the real daemon from the built CLI.
 */
import { PASTE_TRACKER } from '../../src/app/paths.js';
import { pidAlive, procStat } from '../../src/lib/process.js';
import { pasteTrackerCommands } from '../../src/terminal/tmux.js';
import { execa, type ResultPromise } from 'execa';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
  renameSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Timing, timingAt } from '../../src/lib/timing.js';

export const ROOT = resolve(import.meta.dirname, '..', '..');
export const CLI = join(ROOT, 'dist', 'cli.js');
export const RECORDER = join(ROOT, 'test', 'fixtures', 'recorder.mjs');

export async function waitFor<T>(
  what: string,
  fn: () => T | Promise<T>,
  timeoutMs = 15_000,
  everyMs = 25,
): Promise<NonNullable<T>> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v as NonNullable<T>;
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

/**
 * Run `p`'s baton processes (its daemons and CLI calls) with every lease, lock and rescan time of
 * src/lib/timing.ts scaled by `scale`, and return those times: a test that waits past one waits a fraction
 * of it. Set before the project's first daemon starts; every process sharing a lock or lease needs the same.
 */
export function scaleTime(p: { env: Record<string, string> }, scale: number): Timing {
  p.env.BATON_TIME_SCALE = String(scale);
  return timingAt(scale);
}

export class Project {
  readonly dir: string;
  readonly tmuxDir: string;
  readonly env: Record<string, string>;
  private daemons: ResultPromise[] = [];

  constructor(config: Record<string, unknown> = {}) {
    this.dir = mkdtempSync(join(tmpdir(), 'baton-test-'));
    this.tmuxDir = join(this.dir, 'tmux');
    mkdirSync(this.tmuxDir);
    // TMUX (if the tests run inside tmux) would point tmux at the user's server: drop it.
    this.env = {
      TMUX_TMPDIR: this.tmuxDir,
      // The machine's daemon and its registry (app/machine/) are per XDG_STATE_HOME: one per test project,
      // so tests never share a daemon by accident; it runs on this project's tmux server and dies with it.
      XDG_STATE_HOME: join(this.dir, 'state'),
      TMUX: '',
      BATON_CONFIG: '',
      BATON_AGENT: '',
      BATON_TMUX_SOCKET: '',
      CONSOLA_LEVEL: '4',
    };
    this.writeConfig({
      message_dir: './messages',
      agents: { claude1: { kind: 'generic', command: 'x' }, claude2: { kind: 'generic', command: 'x' } },
      directions: { c1_to_c2: ['claude1', 'claude2'], c2_to_c1: ['claude2', 'claude1'] },
      inbox: { max_bytes: 1048576, settle_ms: 300 },
      delivery: { enter_delay_ms: 20 },
      ...config,
    });
  }

  get configFile(): string {
    return join(this.dir, 'config.json');
  }
  get messages(): string {
    return join(this.dir, 'messages');
  }
  path(...p: string[]): string {
    return join(this.messages, ...p);
  }

  writeConfig(c: Record<string, unknown>): void {
    writeFileSync(this.configFile, JSON.stringify(c, null, 2));
  }

  tmux(args: string[], input?: string) {
    return execa('tmux', args, { env: this.env, reject: false, input: input ?? '' });
  }

  /**
   * A session `name` running the recorder; its reads land in <dir>/<name>.log. It answers (`reply`) as
   * agent `as` (default: `name`) of the conversation in `config` (default: this project's). `tracker`: with
   * the bracketed-paste tracker `baton up` gives its panes (tmux < 3.7 cannot say it itself).
   */
  async recorder(
    name: string,
    opts: { reply?: boolean; flags?: string[]; as?: string; config?: string; tracker?: boolean } = {},
  ): Promise<string> {
    const log = join(this.dir, `${name}.log`);
    const r = await this.startRecorder(name, log, opts);
    if (r.exitCode !== 0) throw new Error(`new-session ${name}: ${r.stderr}`);
    await waitFor(`recorder ${name}`, () => existsSync(log));
    await waitFor(`recorder ${name} screen`, async () =>
      (await this.tmux(['capture-pane', '-p', '-t', `=${name}:`])).stdout.includes('recorder ready'),
    );
    return log;
  }

  cli(args: string[], opts: { input?: string; env?: Record<string, string> } = {}) {
    return execa('node', [CLI, ...args, '--config', this.configFile], {
      env: { ...this.env, ...opts.env },
      reject: false,
      input: opts.input ?? '',
      cwd: this.dir,
    });
  }

  /**
   * Start `baton daemon` (with `env` added: BATON_FAILPOINT, say) and wait until it has written its
   * `started` event (or exited). Returned inside
   * an object: the subprocess is a thenable, and returning it bare would wait for it to exit.
   */
  async startDaemon(env: Record<string, string> = {}): Promise<{ proc: ResultPromise }> {
    const before = this.events().filter((e) => e.event === 'started').length;
    const p = execa('node', [CLI, 'daemon', '--config', this.configFile], {
      env: { ...this.env, ...env },
      reject: false,
      cwd: this.dir,
      all: true,
    });
    this.daemons.push(p);
    await waitFor(
      'daemon start',
      () => this.events().filter((e) => e.event === 'started').length > before || p.exitCode !== null,
      20_000,
    );
    return { proc: p };
  }

  /** Write a message file atomically (temp dot-file, then rename), as a well-behaved agent does. */
  send(direction: string, name: string, message: unknown): string {
    return writeMessage(this.path(direction), name, message);
  }

  events(): Array<Record<string, unknown> & { event: string }> {
    const f = this.path('events.jsonl');
    if (!existsSync(f)) return [];
    return readFileSync(f, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
  }

  state(): Record<string, unknown> {
    return JSON.parse(readFileSync(this.path('state.json'), 'utf8'));
  }

  archive(): Array<
    Record<string, unknown> & { id: string; reply_to: string | null; delivered_at: string | null; content: string }
  > {
    return archivedRecords(this.messages, /^msg_\d+\.json$/) as ReturnType<Project['archive']>;
  }

  ls(...p: string[]): string[] {
    const d = this.path(...p);
    return existsSync(d) ? readdirSync(d).sort() : [];
  }

  /** This test's tmux server socket (under its private TMUX_TMPDIR). */
  get socket(): string {
    return join(this.tmuxDir, `tmux-${process.getuid?.() ?? 0}`, 'default');
  }

  /** Kill one session on this test's tmux server, named by its socket path (never the user's server). */
  killSession(name: string) {
    return execa('tmux', ['-S', this.socket, 'kill-session', '-t', `=${name}`], { reject: false });
  }

  /**
   * Kill only this test's tmux server, named by its socket path, and wait until it has exited: a session
   * started while it is still exiting joins it and is lost with it (tmux says "server exited unexpectedly",
   * or nothing at all), which a loaded machine made tests here see.
   */
  async killServer(): Promise<number | undefined> {
    if (!existsSync(this.socket)) return undefined;
    const pid = Number(
      (await execa('tmux', ['-S', this.socket, 'display-message', '-p', '#{pid}'], { reject: false })).stdout,
    );
    const born = startTime(pid);
    const code = (await execa('tmux', ['-S', this.socket, 'kill-server'], { reject: false })).exitCode;
    if (!born) return code;
    // The same process, not only the same pid: pids wrap at 32768 here, and a CI run spawns more than that.
    const gone = () => startTime(pid) !== born;
    if (await waitFor('', gone, 5_000).catch(() => false)) return code;
    // Seen in CI: a SIGKILLed daemon's control client still attached, and the server waiting for it past
    // kill-server. The next daemon ends such clients (terminal/orphans.ts), but a test may end before one
    // starts. So: name who is still connected, then end this test's own server by its pid.
    const who = `for c in $(ss -xp | grep -F 'pid=${pid},' | grep -o 'client",pid=[0-9]*' | grep -o '[0-9]*$' | sort -u); do
      echo "$c ppid $(sed 's/.*) //' /proc/$c/stat | cut -d' ' -f2): $(tr '\\0' ' ' < /proc/$c/cmdline)"; done`;
    const clients = (await execa('sh', ['-c', who], { reject: false })).stdout || 'none seen';
    console.warn(`tmux server ${pid} still up 5 s after kill-server; its clients: ${clients}`);
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone just now */
    }
    await waitFor(`tmux server ${pid} gone`, gone);
    return code;
  }

  async stop(): Promise<void> {
    if (!existsSync(this.dir)) return; // stopped already
    for (const d of this.daemons) if (d.exitCode === null) d.kill('SIGTERM');
    await Promise.all(this.daemons.map((d) => d.catch(() => {})));
    await this.killServer();
    // Daemons in the killed server's panes get SIGHUP and still write their `stopped` event: wait for
    // every daemon that holds one of this project's message folders to exit, then remove it all.
    for (const folder of readdirSync(this.dir).filter((n) => n.startsWith('messages'))) {
      const pidFile = join(this.dir, folder, 'daemon.pid');
      let pid: number | null = null;
      try {
        pid = (JSON.parse(readFileSync(pidFile, 'utf8')) as { pid: number }).pid;
      } catch {
        /* no file, or removed just now by the daemon on its way out (it was read after a check, once: ENOENT) */
      }
      if (pid) await waitFor(`daemon ${pid} to exit`, () => !alive(pid), 10_000).catch(() => {});
    }
    // Node's own retries (maxRetries) only retry the rmdir, never the listing of the children: an agent's
    // `baton post` started just before the server died can still land a file after the folder was listed
    // (CI saw ENOTEMPTY on messages/ once), so the whole removal is tried again.
    for (let i = 0; ; i++) {
      try {
        rmSync(this.dir, { recursive: true, force: true });
        return;
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (i >= 30 || !(code === 'ENOTEMPTY' || code === 'EBUSY')) throw err;
        await sleep(100);
      }
    }
  }

  /**
   * Like recorder(), for an agent that comes up while a daemon is already looking for it: the session
   * is started under another name and takes the agent's name only once the program reads its terminal,
   * so no message can be typed into the pane before the recorder is there to read it.
   */
  async recorderWhenReady(
    name: string,
    opts: { reply?: boolean; log?: string; flags?: string[]; as?: string } = {},
  ): Promise<string> {
    const log = opts.log ?? join(this.dir, `${name}.log`);
    const starting = `${name}-starting`;
    const r = await this.startRecorder(starting, log, { ...opts, as: opts.as ?? name });
    if (r.exitCode !== 0) throw new Error(`new-session ${starting}: ${r.stderr}`);
    await waitFor(`recorder ${name} screen`, async () =>
      (await this.tmux(['capture-pane', '-p', '-t', `=${starting}:`])).stdout.includes('recorder ready'),
    );
    const renamed = await this.tmux(['rename-session', '-t', `=${starting}`, name]);
    if (renamed.exitCode !== 0) throw new Error(`rename-session ${starting} → ${name}: ${renamed.stderr}`);
    return log;
  }

  /** Session `session` running the recorder, its reads appended to `log` (recorder() says what opts mean). */
  private startRecorder(
    session: string,
    log: string,
    opts: { reply?: boolean; flags?: string[]; as?: string; config?: string; tracker?: boolean },
  ) {
    const flags = [...(opts.reply ? ['--reply'] : []), ...(opts.flags ?? [])].map((f) => ` ${f}`).join('');
    return this.tmux([
      'new-session',
      '-d',
      '-s',
      session,
      '-x',
      '200',
      '-y',
      '50',
      '-e',
      `BATON_AGENT=${opts.as ?? session}`,
      '-e',
      `BATON_CONFIG=${opts.config ?? this.configFile}`,
      `exec node ${JSON.stringify(RECORDER)} ${JSON.stringify(log)}${flags}`,
      ...(opts.tracker ? [';', ...pasteTrackerCommands(session, PASTE_TRACKER)] : []),
    ]);
  }
}

/** Is the process alive (a zombie is not)? The daemon's own check. */
export const alive = pidAlive;

/**
 * A files-bus archive's records whose file names match `names`, in ID order, as baton's own readers see it: with
 * the record state.json holds while its message is typed (docs/protocol.md §4), counted archived, unstamped.
 */
export function archivedRecords(messageDir: string, names: RegExp): Array<Record<string, unknown> & { id: string }> {
  const d = join(messageDir, 'archive');
  const files = existsSync(d) ? readdirSync(d).filter((n) => names.test(n)) : [];
  const records = files
    .sort((a, b) => a.length - b.length || (a < b ? -1 : 1))
    .map((n) => JSON.parse(readFileSync(join(d, n), 'utf8')) as Record<string, unknown> & { id: string });
  const file = join(messageDir, 'state.json');
  const state = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>) : {};
  const held = state.delivering as { id?: unknown } | undefined;
  if (typeof held?.id === 'string' && held.id === state.last_message_id && !files.includes(`${held.id}.json`))
    records.push(held as Record<string, unknown> & { id: string });
  return records;
}

/** When process `pid` started (/proc/<pid>/stat field 22), or null once it is gone or a zombie. */
function startTime(pid: number): string | null {
  return pid > 0 && alive(pid) ? (procStat(pid)?.[19] ?? null) : null;
}

/** Write a message file into `dir` atomically (temp dot-file, then rename), as a well-behaved agent does. */
export function writeMessage(dir: string, name: string, message: unknown): string {
  mkdirSync(dir, { recursive: true });
  const tmp = join(dir, `.send-${process.pid}-${Math.random().toString(36).slice(2)}.tmp`);
  writeFileSync(tmp, typeof message === 'string' ? message : JSON.stringify(message));
  renameSync(tmp, join(dir, name));
  return join(dir, name);
}

/**
 * What a recorder read: the raw bytes; each bracketed paste followed by Enter (`pastes`); each paste
 * that was not (`unsubmitted`: a daemon killed between paste and Enter); and anything else (`stray`).
 */
export function readRecorder(log: string): {
  raw: Buffer;
  typed: string[];
  pastes: string[];
  unsubmitted: string[];
  stray: string;
} {
  const lines = readFileSync(log, 'utf8').split('\n');
  lines.pop(); // '' after the last newline, or a line the recorder is still appending: not read yet
  const raw = Buffer.concat(
    lines.filter(Boolean).map((l) => Buffer.from((JSON.parse(l) as { b: string }).b, 'base64')),
  );
  const text = raw.toString('utf8');
  const typed: string[] = [];
  const pastes: string[] = [];
  const unsubmitted: string[] = [];
  // Each paste on its own, in order, exactly as read: baton pastes with -r, so newlines arrive as LF.
  const stray = text.replace(/\x1b\[200~([\s\S]*?)\x1b\[201~(\r?)/g, (_m, body: string, enter: string) => {
    typed.push(body);
    (enter ? pastes : unsubmitted).push(body);
    return '';
  });
  return { raw, typed, pastes, unsubmitted, stray };
}

export interface RejectionNote {
  file: string;
  reason: string;
  stored_as: string;
  direction?: string;
  file_name_base64?: string;
  [key: string]: unknown;
}

/**
 * rejected/ read back as (stored file, note) pairs. A name is a stored file when `<name>.error.json` sits
 * beside it: a rejected file may itself be called `x.error.json`, so the suffix alone proves nothing.
 * `orphans` are entries that are neither (a file without its note, a note without its file).
 */
export function rejectedPairs(p: Project): { stored: Array<{ name: string; note: RejectionNote }>; orphans: string[] } {
  const names = p.ls('rejected');
  const present = new Set(names);
  const stored = names.filter((n) => present.has(`${n}.error.json`));
  const notes = new Set(stored.map((n) => `${n}.error.json`));
  return {
    stored: stored.map((name) => ({
      name,
      note: JSON.parse(readFileSync(p.path('rejected', `${name}.error.json`), 'utf8')) as RejectionNote,
    })),
    orphans: names.filter((n) => !present.has(`${n}.error.json`) && !notes.has(n)),
  };
}
