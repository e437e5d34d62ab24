// The bench's rig: one conversation folder, a private tmux server, recorder panes (bench/recorder.mjs) and
// the real daemon (dist/cli.js); and the small helpers every workload uses. BENCH_DAEMON_NODE_FLAGS (or
// `bench.mjs --cpu-prof DIR`) adds node flags to the daemon, e.g. "--cpu-prof --cpu-prof-dir=DIR".
import { execFile, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PASTE_TRACKER } from '../dist/app/paths.js';
import { pasteTrackerCommands } from '../dist/terminal/tmux.js';

export const ROOT = resolve(import.meta.dirname, '..');
export const CLI = join(ROOT, 'dist', 'cli.js');
const RECORDER = join(ROOT, 'bench', 'recorder.mjs');

export const now = () => performance.timeOrigin + performance.now();
export const say = (s) => process.stderr.write(`${s}\n`);
export const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] : NaN;
};
export const median = (xs) => pct(xs, 50);
export const round = (x, d = 1) => Math.round(x * 10 ** d) / 10 ** d;
export const pad4 = (n) => `msg_${String(n).padStart(4, '0')}`;
export const run = (cmd, args, env) =>
  new Promise((res) => execFile(cmd, args, { env }, (err, stdout, stderr) => res({ ok: !err, stdout, stderr })));

/** One conversation folder, a private tmux server, recorder panes, and the daemon. */
export class Rig {
  /**
   * `directions`: { name: [from, to] } (default: a ring in `agents` order); `settleMs`: inbox.settle_ms;
   * `enterDelay`: delivery.enter_delay_ms, null for none (each agent's kind decides).
   * `cli`: the daemon's dist/cli.js (another build's, to compare with it: bench/against.mjs); `nodeFlags`:
   * the daemon's node flags (default BENCH_DAEMON_NODE_FLAGS).
   */
  constructor({
    agents = ['claude1', 'claude2'],
    policy = 'alternate',
    enterDelay = 0,
    directions,
    settleMs = 300,
    cli = CLI,
    nodeFlags = process.env.BENCH_DAEMON_NODE_FLAGS,
  } = {}) {
    this.cli = cli;
    this.nodeFlags = nodeFlags?.split(' ').filter(Boolean) ?? [];
    this.dir = mkdtempSync(join(tmpdir(), 'baton-bench-'));
    this.tmuxDir = join(this.dir, 'tmux');
    mkdirSync(this.tmuxDir);
    this.env = {
      ...process.env,
      TMUX_TMPDIR: this.tmuxDir,
      TMUX: '',
      BATON_CONFIG: '',
      BATON_AGENT: '',
      BATON_TMUX_SOCKET: '',
      CONSOLA_LEVEL: '1',
    };
    this.agents = agents;
    this.messages = join(this.dir, 'messages');
    const dirs = directions ?? {};
    this.outDir = {};
    if (!directions)
      agents.forEach((a, i) => {
        const to = agents[(i + 1) % agents.length];
        dirs[`${a}_to_${to}`] = [a, to];
      });
    // An agent's outgoing folder: its first direction (each has one in a ring).
    for (const [name, [from]] of Object.entries(dirs)) this.outDir[from] ??= join(this.messages, name);
    this.config = join(this.dir, 'config.json');
    writeFileSync(
      this.config,
      JSON.stringify({
        message_dir: './messages',
        agents: Object.fromEntries(agents.map((a) => [a, { kind: 'generic', command: 'x' }])),
        directions: dirs,
        turns: { policy },
        inbox: { settle_ms: settleMs },
        delivery: enterDelay === null ? {} : { enter_delay_ms: enterDelay },
      }),
    );
    for (const name of Object.keys(dirs)) mkdirSync(join(this.messages, name), { recursive: true });
    this.notes = [];
    this.waiters = [];
    this.sockPath = join(this.dir, 'notify.sock');
  }

  async listen() {
    this.server = createServer((s) => {
      let buf = '';
      s.on('data', (d) => {
        buf += d;
        let nl;
        while ((nl = buf.indexOf('\n')) >= 0) {
          const note = JSON.parse(buf.slice(0, nl));
          buf = buf.slice(nl + 1);
          this.notes.push(note);
          for (const w of this.waiters.splice(0)) if (!w(note)) this.waiters.push(w);
        }
      });
    });
    await new Promise((r) => this.server.listen(this.sockPath, r));
  }

  /** Resolve with the first note that `pred` accepts (from now on, or already received when `past`). */
  note(pred, timeoutMs = 20_000, past = false) {
    if (past) {
      const n = this.notes.find(pred);
      if (n) return Promise.resolve(n);
    }
    return new Promise((res, rej) => {
      const t = setTimeout(() => rej(new Error('timed out waiting for a recorder')), timeoutMs);
      this.waiters.push((n) => {
        if (!pred(n)) return false;
        clearTimeout(t);
        res(n);
        return true;
      });
    });
  }

  tmux(args) {
    return run('tmux', args, this.env);
  }

  async recorders({ reply = false, until = Infinity } = {}) {
    await this.listen();
    for (const a of this.agents) {
      const flags = [
        '--agent',
        a,
        '--notify',
        this.sockPath,
        ...(reply ? ['--reply-dir', this.outDir[a], '--reply-until', String(until)] : []),
      ];
      const cmd = ['exec', 'node', RECORDER, ...flags].map((x) => (x === 'exec' ? x : JSON.stringify(x))).join(' ');
      // As `baton up` starts an agent's pane: with the bracketed-paste tracker (scripts/paste-mode.pl) beside it,
      // so baton knows the pane takes pastes without asking the terminal (stty) — tmux 3.3 cannot say.
      const r = await this.tmux([
        'new-session',
        '-d',
        '-s',
        a,
        '-x',
        '200',
        '-y',
        '50',
        cmd,
        ';',
        ...pasteTrackerCommands(a, PASTE_TRACKER),
      ]);
      if (!r.ok) throw new Error(`new-session ${a}: ${r.stderr}`);
    }
    for (const a of this.agents) {
      for (let i = 0; ; i++) {
        if ((await this.tmux(['capture-pane', '-p', '-t', `=${a}:`])).stdout.includes('recorder ready')) break;
        if (i > 200) throw new Error(`recorder ${a} did not start`);
        await sleep(25);
      }
    }
  }

  /** Start the daemon; resolves once its `started` event is written. */
  async daemon(env = {}) {
    const t0 = now();
    this.proc = spawn(process.execPath, [...this.nodeFlags, this.cli, 'daemon', '--config', this.config], {
      env: { ...this.env, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    this.stderr = '';
    this.proc.stderr.on('data', (d) => (this.stderr += d));
    this.exited = new Promise((r) => this.proc.once('exit', r));
    for (let i = 0; !this.events().some((e) => e.event === 'started'); i++) {
      if (this.proc.exitCode !== null || i > 800) throw new Error(`daemon did not start: ${this.stderr}`);
      await sleep(5);
    }
    return t0;
  }

  events() {
    const f = join(this.messages, 'events.jsonl');
    return existsSync(f)
      ? readFileSync(f, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l))
      : [];
  }

  /** The archive as baton's readers see it: with the record state.json holds while it is typed (held.ts). */
  archive() {
    const d = join(this.messages, 'archive');
    const names = readdirSync(d).filter((n) => /^msg_\d+\.json$/.test(n));
    const records = names
      .sort((a, b) => a.length - b.length || (a < b ? -1 : 1))
      .map((n) => JSON.parse(readFileSync(join(d, n), 'utf8')));
    const state = join(this.messages, 'state.json');
    const held = existsSync(state) ? JSON.parse(readFileSync(state, 'utf8')).delivering : undefined;
    if (held?.id && !names.includes(`${held.id}.json`)) records.push(held);
    return records;
  }

  /** Once `id` is stamped delivered in archive/ (the daemon's last write for it), or after `ms`. */
  async stamped(id, ms = 5000) {
    const file = join(this.messages, 'archive', `${id}.json`);
    for (const t0 = now(); now() - t0 < ms; await sleep(5)) {
      try {
        if (JSON.parse(readFileSync(file, 'utf8')).delivered_at) return;
      } catch {
        /* not there yet, or being replaced */
      }
    }
  }

  /** Write a message as a well-behaved agent does; returns the time just after the rename. */
  send(agent, content, name = `msg_${process.hrtime.bigint()}.json`) {
    const dir = this.outDir[agent];
    const tmp = join(dir, `.${name}.tmp`);
    writeFileSync(tmp, JSON.stringify({ content }));
    renameSync(tmp, join(dir, name));
    return now();
  }

  /** Pre-populate archive/ and state.json with `n` delivered messages, as a long conversation leaves them. */
  seedArchive(n) {
    const d = join(this.messages, 'archive');
    mkdirSync(d, { recursive: true });
    const k = this.agents.length;
    for (let i = 1; i <= n; i++) {
      const from = this.agents[(i - 1) % k];
      const to = this.agents[i % k];
      const rec = {
        id: pad4(i),
        reply_to: i > 1 ? pad4(i - 1) : null,
        sender: from,
        receiver: to,
        type: 'message',
        content: `old message ${i}`,
        direction: `${from}_to_${to}`,
        source_file: `old_${i}.json`,
        received_at: new Date().toISOString(),
        delivered_at: new Date().toISOString(),
      };
      writeFileSync(join(d, `${pad4(i)}.json`), `${JSON.stringify(rec, null, 2)}\n`);
    }
    const last = pad4(n);
    writeFileSync(
      join(this.messages, 'state.json'),
      JSON.stringify({
        current_turn: this.agents[n % k],
        last_message_id: last,
        message_counter: n,
        pending_reply_to: last,
      }),
    );
  }

  /** Stop everything and remove the folder; `keep`: leave the folder to the caller (remove()). */
  async stop({ keep = false } = {}) {
    if (this.proc && this.proc.exitCode === null) {
      this.proc.kill('SIGTERM');
      await this.exited;
    }
    this.server?.close();
    const sock = join(this.tmuxDir, `tmux-${process.getuid()}`, 'default');
    if (existsSync(sock)) await run('tmux', ['-S', sock, 'kill-server'], this.env);
    if (!keep) this.remove();
  }

  remove() {
    rmSync(this.dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  }
}

export const stats = (xs) => ({
  n: xs.length,
  p50: round(pct(xs, 50), 2),
  p90: round(pct(xs, 90), 2),
  p99: round(pct(xs, 99), 2),
  max: round(Math.max(...xs), 2),
});
