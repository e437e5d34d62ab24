// Many conversations on one machine, files bus: one machine daemon (`baton daemon --machine`, what `baton up`
// starts) against one daemon per conversation (`baton daemon --config …` each, the former way).
//
//   machine_idle:  1, 10 and 50 idle conversations (each delivered one message, so its tmux control client is
//                  attached as in a live conversation); RSS (MB) and CPU (% of a core, every thread, over the
//                  idle window) of the one machine daemon, and the sums over the daemons per conversation.
//                  Goal: 50 conversations in ≤ 150 MB and ≤ 1% of a core idle, in one process.
//   machine_busy:  10 and 30 conversations all ping-ponging at once (recorders answer every message at
//                  once); turns per second, a turn's p50 / p99 (previous paste → this paste's first byte),
//                  strict turns checked in each.
//   machine_quiet: one machine daemon serving two conversations; the quiet one sends a probe every 100 ms
//                  (rename → first byte in the pane) while the other takes a burst of 400 written at once;
//                  the quiet one's p50 / p99 against the same probes with no burst.
//
// Each "fleet" is a temp folder with one private tmux server (every conversation's panes on it), one
// XDG_STATE_HOME (the machine daemon's registry, written here as `baton up` writes it) and recorder agents
// (bench/recorder.mjs). `node bench/bench.mjs --only machine_idle,machine_busy,machine_quiet [--quick]`.
import { spawn } from 'node:child_process';
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
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PASTE_TRACKER } from '../dist/app/paths.js';
import { pasteTrackerCommands } from '../dist/terminal/tmux.js';
import { CLI, ROOT, now, pad4, pct, round, run, say, stats } from './rig.mjs';
import { Notes } from './notes.mjs';

const RECORDER = join(ROOT, 'bench', 'recorder.mjs');
const AGENTS = ['claude1', 'claude2'];

/** CPU seconds of a process, every thread (schedstat's first field is ns on the CPU). */
function cpuS(pid) {
  try {
    return (
      readdirSync(`/proc/${pid}/task`).reduce((sum, t) => {
        try {
          return sum + Number(readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'utf8').split(' ')[0]);
        } catch {
          return sum; // a thread that ended
        }
      }, 0) / 1e9
    );
  } catch {
    return 0;
  }
}
const rssMb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

class Fleet {
  constructor(k) {
    this.root = mkdtempSync(join(tmpdir(), 'baton-bench-machine-'));
    this.tmuxDir = join(this.root, 'tmux');
    mkdirSync(this.tmuxDir);
    this.env = {
      ...process.env,
      TMUX_TMPDIR: this.tmuxDir,
      XDG_STATE_HOME: join(this.root, 'state'),
      TMUX: '',
      BATON_CONFIG: '',
      BATON_AGENT: '',
      BATON_TMUX_SOCKET: '',
      CONSOLA_LEVEL: '1',
    };
    this.socket = join(this.tmuxDir, `tmux-${process.getuid()}`, 'default');
    this.convs = Array.from({ length: k }, (_, i) => {
      const dir = join(this.root, `c${i}`);
      const tag = (a) => `c${i}-${a}`;
      const config = {
        message_dir: './messages',
        agents: Object.fromEntries(AGENTS.map((a) => [a, { kind: 'generic', target: `${tag(a)}:0.0` }])),
        directions: { claude1_to_claude2: ['claude1', 'claude2'], claude2_to_claude1: ['claude2', 'claude1'] },
        inbox: { settle_ms: 300 },
        delivery: { enter_delay_ms: 0 },
      };
      for (const d of Object.keys(config.directions)) mkdirSync(join(dir, 'messages', d), { recursive: true });
      writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
      const out = {
        claude1: join(dir, 'messages', 'claude1_to_claude2'),
        claude2: join(dir, 'messages', 'claude2_to_claude1'),
      };
      return { i, dir, tag, out, config: join(dir, 'config.json'), messages: join(dir, 'messages') };
    });
    this.recv = new Notes(this.root);
    this.procs = [];
  }

  async listen() {
    await this.recv.listen();
    this.sock = this.recv.path;
  }

  /** The first note from now on that `pred` accepts. */
  note(pred, timeoutMs = 60_000) {
    return this.recv.wait(pred, timeoutMs, { past: false });
  }

  /** Every note received so far. */
  get notes() {
    return this.recv.list;
  }

  /** A recorder pane per agent (`reply`: it answers every message at once, as a fast agent would). */
  async recorders({ reply = false } = {}) {
    await this.listen();
    for (const c of this.convs)
      for (const a of AGENTS) {
        const flags = ['--agent', c.tag(a), '--notify', this.sock, ...(reply ? ['--reply-dir', c.out[a]] : [])];
        const cmd = ['exec', 'node', RECORDER, ...flags].map((x) => (x === 'exec' ? x : JSON.stringify(x))).join(' ');
        const r = await run(
          'tmux',
          [
            'new-session',
            '-d',
            '-s',
            c.tag(a),
            '-x',
            '200',
            '-y',
            '50',
            cmd,
            ';',
            ...pasteTrackerCommands(c.tag(a), PASTE_TRACKER),
          ],
          this.env,
        );
        if (!r.ok) throw new Error(`new-session ${c.tag(a)}: ${r.stderr}`);
      }
    for (const c of this.convs)
      for (const a of AGENTS)
        for (
          let i = 0;
          !(await run('tmux', ['capture-pane', '-p', '-t', `=${c.tag(a)}:`], this.env)).stdout.includes(
            'recorder ready',
          );
          i++
        ) {
          if (i > 800) throw new Error(`recorder ${c.tag(a)} did not start`);
          await sleep(25);
        }
  }

  started(c) {
    const f = join(c.messages, 'events.jsonl');
    return existsSync(f) && readFileSync(f, 'utf8').includes('"started"');
  }

  spawnDaemon(args) {
    const flags = process.env.BENCH_DAEMON_NODE_FLAGS?.split(' ').filter(Boolean) ?? [];
    const p = spawn(process.execPath, [...flags, CLI, 'daemon', ...args], {
      env: this.env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    p.err = '';
    p.stderr.on('data', (d) => (p.err = (p.err + d).slice(-4000)));
    p.exited = new Promise((r) => p.once('exit', r));
    this.procs.push(p);
    return p;
  }

  /** `machine`: one `baton daemon --machine` serving the registry; else one `baton daemon` per conversation. */
  async daemons(machine) {
    if (machine) {
      const state = join(this.env.XDG_STATE_HOME, 'baton');
      mkdirSync(state, { recursive: true });
      const at = new Date().toISOString();
      const conversations = this.convs.map((c) => ({
        config: c.config,
        home: c.dir,
        message_dir: c.messages,
        bus: 'files',
        tmux: this.socket,
        added_at: at,
      }));
      writeFileSync(join(state, 'conversations.json'), JSON.stringify({ version: 1, conversations }));
      this.spawnDaemon(['--machine']);
    } else for (const c of this.convs) this.spawnDaemon(['--config', c.config]);
    for (let i = 0; !this.convs.every((c) => this.started(c)); i++) {
      const dead = this.procs.find((p) => p.exitCode !== null);
      if (dead || i > 1200) throw new Error(`a daemon did not start: ${dead?.err ?? 'timed out'}`);
      await sleep(50);
    }
    return this.procs.map((p) => p.pid);
  }

  send(c, agent, content, name = `msg_${process.hrtime.bigint()}.json`) {
    writeFileSync(join(c.out[agent], `.${name}.tmp`), JSON.stringify({ content }));
    renameSync(join(c.out[agent], `.${name}.tmp`), join(c.out[agent], name));
    return now();
  }

  async stop() {
    for (const p of this.procs) if (p.exitCode === null) p.kill('SIGTERM');
    await Promise.all(this.procs.map((p) => p.exited));
    this.recv.close();
    if (existsSync(this.socket)) await run('tmux', ['-S', this.socket, 'kill-server'], this.env);
    rmSync(this.root, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  }
}

async function fleet(k, fn) {
  const f = new Fleet(k);
  try {
    return await fn(f);
  } finally {
    await f.stop();
  }
}

/** RSS and idle CPU of the daemons serving `k` idle conversations, each delivered one message first. */
function idleOnce(k, machine, seconds) {
  return fleet(k, async (f) => {
    await f.recorders();
    const pids = await f.daemons(machine);
    const got = Promise.all(f.convs.map((c) => f.note((x) => x.agent === c.tag('claude2') && x.id === 'msg_0001')));
    for (const c of f.convs) f.send(c, 'claude1', 'wake up');
    await got;
    await sleep(3000); // past the delivery's after-work (fsync, events) and the settle timers
    const c0 = pids.reduce((s, p) => s + cpuS(p), 0);
    const t0 = now();
    const rss = [];
    for (let s = 0; s < seconds; s++) {
      await sleep(1000);
      rss.push(pids.reduce((sum, p) => sum + rssMb(p), 0));
    }
    const wall = (now() - t0) / 1000;
    const cpu = pids.reduce((s, p) => s + cpuS(p), 0) - c0;
    return {
      conversations: k,
      processes: pids.length,
      rss_mb: round(Math.max(...rss)),
      cpu_percent: round((cpu / wall) * 100, 2),
    };
  });
}

export async function machineIdle({ counts = [1, 10, 50], seconds = 30, modes = [true, false] } = {}) {
  const out = [];
  for (const k of counts)
    for (const machine of modes) {
      say(`    ${k} idle conversations, ${machine ? 'one machine daemon' : 'one daemon per conversation'} …`);
      out.push({ daemons: machine ? 'machine' : 'conversation', ...(await idleOnce(k, machine, seconds)) });
    }
  return out;
}

/** `k` conversations ping-ponging at once for `seconds`: turns/s, a turn's p50 / p99, strict turns in each. */
function busyOnce(k, machine, seconds) {
  return fleet(k, async (f) => {
    await f.recorders({ reply: true });
    await f.daemons(machine);
    const t0 = now();
    for (const c of f.convs) f.send(c, 'claude1', 'ping');
    await sleep(seconds * 1000);
    const turns = f.notes.filter((x) => x.done >= t0 && x.done <= t0 + seconds * 1000);
    const lat = [];
    let strict = true;
    for (const c of f.convs) {
      const mine = f.notes.filter((x) => x.agent.startsWith(`c${c.i}-`)).sort((a, b) => a.first - b.first);
      for (let i = 1; i < mine.length; i++) {
        lat.push(mine[i].first - mine[i - 1].done);
        // Strict turns: IDs follow one another, each to the other agent than the one before.
        if (Number(mine[i].id.slice(4)) !== Number(mine[i - 1].id.slice(4)) + 1 || mine[i].agent === mine[i - 1].agent)
          strict = false;
      }
    }
    return {
      daemons: machine ? 'machine' : 'conversation',
      conversations: k,
      turns_per_s: round(turns.length / seconds, 1),
      turn_p50_ms: round(pct(lat, 50)),
      turn_p99_ms: round(pct(lat, 99)),
      strict,
    };
  });
}

export async function machineBusy({ counts = [10, 30], seconds = 20 } = {}) {
  const out = [];
  for (const k of counts)
    for (const machine of [true, false]) {
      say(`    ${k} busy conversations, ${machine ? 'one machine daemon' : 'one daemon per conversation'} …`);
      out.push(await busyOnce(k, machine, seconds));
    }
  return out;
}

/** Probes in the quiet conversation (alternating senders, one every `gapMs`), with or without a burst beside. */
function quietOnce(burst, n, gapMs) {
  return fleet(2, async (f) => {
    const [quiet, loud] = f.convs;
    await f.recorders();
    await f.daemons(true);
    const per = 200;
    let burstDone = Promise.resolve(null);
    let burstEnd = Infinity;
    const tb = now();
    if (burst) {
      const last = f.note((x) => x.agent.startsWith('c1-') && x.id === pad4(per * 2), 300_000);
      for (let i = 0; i < per; i++)
        for (const a of AGENTS) f.send(loud, a, `burst ${a} ${i}`, `msg_${String(i).padStart(6, '0')}.json`);
      burstDone = last.then((x) => {
        burstEnd = x.done;
        return (x.done - tb) / 1000;
      });
    }
    // Probes go on until the burst is over (at least `n`): only those sent during it count beside a burst.
    const lat = [];
    for (let i = 0; i < n || (burst && burstEnd === Infinity && i < 5000); i++) {
      const id = pad4(i + 1);
      const got = f.note((x) => x.agent === quiet.tag(AGENTS[(i + 1) % 2]) && x.id === id);
      const t0 = f.send(quiet, AGENTS[i % 2], `quiet probe ${i}`);
      const ms = (await got).first - t0;
      if (t0 < burstEnd) lat.push(ms);
      await sleep(gapMs);
    }
    const seconds = await burstDone;
    const ids = f.notes.filter((x) => x.agent.startsWith('c1-')).map((x) => x.id);
    return {
      quiet: stats(lat),
      ...(burst
        ? { burst_s: round(seconds, 2), burst_correct: new Set(ids).size === ids.length && ids.length === per * 2 }
        : {}),
    };
  });
}

export async function machineQuiet({ n = 100, gapMs = 100 } = {}) {
  say('    the quiet conversation alone …');
  const alone = await quietOnce(false, n, gapMs);
  say('    the quiet conversation beside a burst of 400 …');
  const beside = await quietOnce(true, n, gapMs);
  return {
    alone: alone.quiet,
    beside_burst: beside.quiet,
    burst_s: beside.burst_s,
    burst_correct: beside.burst_correct,
  };
}
