#!/usr/bin/env node
// npm run bench — baton's speed and footprint, measured end to end on a private tmux server with the real
// daemon (dist/cli.js) and recorder agents (bench/recorder.mjs) that timestamp every byte they read.
// Prints one table and writes the results as JSON (bench/out/latest.json and a dated copy).
//
//   node bench/bench.mjs [--runs N] [--quick] [--skip-scaling] [--only W,W…] [--out FILE]
//   node bench/bench.mjs --only daemon_cpu [--against COMMIT] [--pairs N] [--cpu-prof DIR]
//
// Workloads (see docs/performance.md): latency, ping-pong, burst, idle, floor; scaling with 1,000 and
// 10,000 archived messages and with 2, 4 and 8 agents. Nothing here is a pass/fail test: it reports.
// daemon_cpu, the CPU a delivered message costs the daemon, is a ratio against an earlier commit's daemon
// (default a4211c7) run interleaved with this one in the same run (bench/against.mjs says why).
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { CLI, ROOT, Rig, median, now, pad4, pct, round, run, say, stats } from './rig.mjs';
import { AGAINST, daemonCpuAgainst } from './against.mjs';
import { FLOODS, flood, held } from './intake.mjs';
import { machineBusy, machineIdle, machineQuiet } from './machine.mjs';

const USAGE =
  'Usage: node bench/bench.mjs [--runs N] [--quick] [--skip-scaling] [--only W,W…] [--out FILE] [--cpu-prof DIR] [--against COMMIT] [--pairs N]\n       node bench/bench.mjs --bus postgres [--quick] [--skip-scaling] [--only latency,pingpong,burst,scale] [--convs 10,30,100] [--daemons machine|conversation] [--out FILE]\n  workloads: floor latency latency_no_control latency_default_delay pingpong pingpong_default_delay burst idle ui flood flood_checker flood_garbage held daemon_cpu scaling\n  machine_idle machine_busy machine_quiet: many conversations on one machine (bench/machine.mjs), only when named\n  --cpu-prof DIR: each daemon writes a CPU profile (node --cpu-prof) into DIR\n  --against COMMIT, --pairs N: daemon_cpu against the daemon of that commit (default a4211c7), N interleaved pairs (default 3)';

const { values: opt } = (() => {
  try {
    return parseArgs({
      options: {
        bus: { type: 'string' },
        convs: { type: 'string' },
        daemons: { type: 'string' },
        runs: { type: 'string', default: '1' },
        quick: { type: 'boolean' },
        'skip-scaling': { type: 'boolean' },
        only: { type: 'string' },
        out: { type: 'string' },
        'cpu-prof': { type: 'string' },
        against: { type: 'string' },
        pairs: { type: 'string' },
        help: { type: 'boolean' },
      },
    });
  } catch (err) {
    process.stderr.write(`${err.message}\n${USAGE}\n`);
    process.exit(2);
  }
})();
if (opt.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
// --bus postgres: the files bus and the PostgreSQL bus side by side (bench/bus.mjs).
if (opt.bus === 'postgres') {
  await import('./bus.mjs');
} else if (opt.bus && opt.bus !== 'files') {
  process.stderr.write(`--bus: "files" or "postgres"\n${USAGE}\n`);
  process.exit(2);
}
if (opt['cpu-prof']) process.env.BENCH_DAEMON_NODE_FLAGS = `--cpu-prof --cpu-prof-dir=${resolve(opt['cpu-prof'])}`;
const RUNS = Math.max(1, Number(opt.runs) || 1);
const QUICK = !!opt.quick;
const N_LATENCY = QUICK ? 60 : 200;
const N_DEFAULT_DELAY = QUICK ? 20 : 50;
const ROUND_TRIPS = QUICK ? 30 : 100;
const BURST_PER_DIR = QUICK ? 50 : 200;
const IDLE_S = QUICK ? 10 : 30;
if (!existsSync(CLI)) {
  process.stderr.write('dist/cli.js is missing: run "npm run build" first (npm run bench does)\n');
  process.exit(1);
}

/** rename → first byte in the receiving pane, one message at a time, senders alternating (round robin for N agents). */
async function latency({ n = N_LATENCY, enterDelay = 0, agents, policy, seed = 0, env = {} } = {}) {
  const rig = new Rig({ agents, policy, enterDelay });
  try {
    if (seed) rig.seedArchive(seed);
    await rig.recorders();
    await rig.daemon(env);
    const lat = [];
    const k = rig.agents.length;
    for (let i = 0; i < n; i++) {
      const id = pad4(seed + i + 1);
      const from = rig.agents[(seed + i) % k];
      const got = rig.note((x) => x.id === id);
      const t0 = rig.send(from, `latency probe ${i}: ${'lorem ipsum '.repeat(20)}`);
      const note = await got;
      lat.push(note.first - t0);
      await sleep(20); // an agent's think time; lets the daemon finish stamping before the next file
    }
    // The daemon's own share: first sight of the file → paste done (its `delivered` events' latency_ms).
    const own = rig
      .events()
      .filter((e) => e.event === 'delivered')
      .map((e) => e.latency_ms);
    return { ...stats(lat), daemon_p50: round(pct(own, 50), 2), daemon_p99: round(pct(own, 99), 2) };
  } finally {
    await rig.stop();
  }
}

/** Two agents answer each other at once, for `trips` round trips; messages per second. */
async function pingpong({ trips = ROUND_TRIPS, enterDelay = 0 } = {}) {
  const rig = new Rig({ enterDelay });
  try {
    const total = trips * 2;
    await rig.recorders({ reply: true, until: total });
    await rig.daemon();
    const last = rig.note((x) => x.id === pad4(total), 120_000);
    const t0 = rig.send('claude1', 'ping');
    const end = await last;
    const ok = rig.archive().length === total;
    return {
      messages: total,
      seconds: round((end.done - t0) / 1000, 3),
      per_s: round(total / ((end.done - t0) / 1000)),
      correct: ok,
    };
  } finally {
    await rig.stop();
  }
}

/** `perDir` files pre-written into each direction before the daemon starts; time until all are typed. */
async function burst({ perDir = BURST_PER_DIR, seed = 0 } = {}) {
  const rig = new Rig();
  try {
    if (seed) rig.seedArchive(seed);
    await rig.recorders();
    for (let i = 0; i < perDir; i++) {
      for (const a of rig.agents) rig.send(a, `burst ${a} ${i}`, `msg_${String(i).padStart(6, '0')}.json`);
    }
    const total = perDir * rig.agents.length;
    const lastId = pad4(seed + total);
    const last = rig.note((x) => x.id === lastId, 300_000);
    const t0 = await rig.daemon();
    const started = rig.events().find((e) => e.event === 'started');
    const end = await last;
    await sleep(300); // let the last stamp land
    const problems = checkBurst(rig, perDir, seed);
    return {
      messages: total,
      seconds: round((end.done - t0) / 1000, 3),
      seconds_after_started: round((end.done - Date.parse(started.ts)) / 1000, 3),
      per_s: round(total / ((end.done - t0) / 1000)),
      correct: problems.length === 0,
      problems: problems.slice(0, 5),
    };
  } finally {
    await rig.stop();
  }
}

/** Every ID once, in order, alternating, reply_to chained, each pane typed each of its IDs once, inboxes empty. */
function checkBurst(rig, perDir, seed) {
  const problems = [];
  const archive = rig.archive().slice(seed);
  const total = perDir * 2;
  if (archive.length !== total) problems.push(`archive has ${archive.length} new records, expected ${total}`);
  archive.forEach((r, i) => {
    const id = pad4(seed + i + 1);
    if (r.id !== id) problems.push(`record ${i} is ${r.id}, expected ${id}`);
    if (r.reply_to !== (seed + i ? pad4(seed + i) : null)) problems.push(`${r.id} reply_to ${r.reply_to}`);
    const from = rig.agents[(seed + i) % 2];
    if (r.sender !== from) problems.push(`${r.id} from ${r.sender}, expected ${from}`);
    const want = `burst ${from} ${Math.floor(i / 2)}`;
    if (r.content !== want) problems.push(`${r.id} content "${r.content}", expected "${want}" (file order)`);
    if (!r.delivered_at) problems.push(`${r.id} not stamped delivered`);
  });
  for (const a of rig.agents) {
    const ids = rig.notes.filter((x) => x.agent === a).map((x) => x.id);
    const want = archive.filter((r) => r.receiver === a).map((r) => r.id);
    if (JSON.stringify(ids) !== JSON.stringify(want))
      problems.push(`${a} read ${ids.length} pastes, expected ${want.length} in order`);
  }
  for (const d of Object.values(rig.outDir)) {
    const left = readdirSync(d);
    if (left.length) problems.push(`${d} still holds ${left.length} files`);
  }
  return problems;
}

/** CPU time and RSS of an idle daemon (and its tmux control client) over `seconds`. */
async function idle({ seconds = IDLE_S } = {}) {
  const rig = new Rig();
  try {
    await rig.recorders();
    await rig.daemon();
    // One delivery first, so the control client is attached as it would be in a live conversation.
    const got = rig.note((x) => x.id === 'msg_0001');
    rig.send('claude1', 'wake up');
    await got;
    await sleep(1000);
    const pid = rig.proc.pid;
    const kids = () =>
      readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    // CPU time in ns, summed over every thread (libuv's pool does the file work): schedstat's first field.
    const ticks = (p) =>
      readdirSync(`/proc/${p}/task`).reduce((sum, t) => {
        try {
          return sum + Number(readFileSync(`/proc/${p}/task/${t}/schedstat`, 'utf8').split(' ')[0]);
        } catch {
          return sum; // a thread that ended
        }
      }, 0);
    const rss = (p) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))[1]) / 1024;
    const hz = 1e9;
    const children = kids();
    const before = ticks(pid);
    const beforeKids = children.reduce((s, p) => s + ticks(p), 0);
    const t0 = now();
    const samples = [];
    for (let s = 0; s < seconds; s++) {
      await sleep(1000);
      samples.push(rss(pid));
    }
    const wall = (now() - t0) / 1000;
    const cpu = (ticks(pid) - before) / hz;
    const cpuKids = (children.reduce((s, p) => s + ticks(p), 0) - beforeKids) / hz;
    return {
      seconds: round(wall),
      cpu_percent: round((cpu / wall) * 100, 2),
      cpu_percent_with_tmux_client: round(((cpu + cpuKids) / wall) * 100, 2),
      rss_mb: round(Math.max(...samples)),
      control_clients: children.length,
    };
  } finally {
    await rig.stop();
  }
}

/**
 * The floor: the same paste, typed with no daemon, by the cheapest path (one long-lived control-mode
 * client: set-buffer + paste-buffer, then Enter) — and, for reference, by one tmux process per paste.
 */
async function floor({ n = N_LATENCY } = {}) {
  const rig = new Rig();
  try {
    await rig.recorders();
    const ctl = spawn('tmux', ['-C', 'attach-session', '-t', '=claude1', '-f', 'ignore-size,no-output'], {
      env: rig.env,
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    await sleep(300);
    const q = (s) => `"${s.replace(/[\n\\"$~#;]/g, (c) => (c === '\n' ? '\\n' : `\\${c}`))}"`;
    const text = (i) =>
      `[baton] floor_${i} from claude1\nlatency probe ${i}: ${'lorem ipsum '.repeat(20)}\n(reply hint)`;
    const control = [];
    for (let i = 0; i < n; i++) {
      const got = rig.note((x) => x.id === `floor_${i}`);
      const t0 = now();
      ctl.stdin.write(
        `set-buffer -b f -- ${q(text(i))}\npaste-buffer -p -r -d -b f -t =claude2:\nsend-keys -t =claude2: Enter\n`,
      );
      control.push((await got).first - t0);
      await sleep(20);
    }
    ctl.kill();
    const proc = [];
    for (let i = 0; i < n; i++) {
      const id = `floor_p${i}`;
      const got = rig.note((x) => x.id === id);
      const t0 = now();
      const child = execFile(
        'tmux',
        [
          'load-buffer',
          '-b',
          'g',
          '-',
          ';',
          'paste-buffer',
          '-p',
          '-r',
          '-d',
          '-b',
          'g',
          '-t',
          '=claude2:',
          ';',
          'send-keys',
          '-t',
          '=claude2:',
          'Enter',
        ],
        { env: rig.env },
      );
      child.stdin.end(text(i).replace(`floor_${i}`, id));
      proc.push((await got).first - t0);
      await sleep(20);
    }
    return { control_client: stats(control), one_process: stats(proc) };
  } finally {
    await rig.stop();
  }
}

// ---- main ---------------------------------------------------------------------------------------

/** CPU time in seconds of a process, summed over its threads (schedstat's first field is ns on CPU). */
function cpuSeconds(pid) {
  return readdirSync(`/proc/${pid}/task`).reduce((sum, t) => {
    try {
      return sum + Number(readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'utf8').split(' ')[0]) / 1e9;
    } catch {
      return sum; // a thread that ended
    }
  }, 0);
}
const rssMb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

/**
 * The dashboard: `baton ui` over a long archive. Start-up (to its address printed), the snapshot a tab
 * loads, when a delivery reaches an open tab by SSE compared with when it reached the pane, and the
 * server's idle cost with one tab open (it reads status and screens every 2–2.5 s while a tab is open).
 */
async function ui({ archived = QUICK ? 2000 : 10000, n = QUICK ? 30 : 100, idleS = QUICK ? 5 : 20 } = {}) {
  const rig = new Rig();
  let proc;
  const ctrl = new AbortController();
  try {
    rig.seedArchive(archived);
    await rig.recorders();
    await rig.daemon();
    const t0 = now();
    proc = spawn(process.execPath, [CLI, 'ui', '--port', '0', '--json', '--config', rig.config], {
      env: rig.env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const { url } = await new Promise((res, rej) => {
      let out = '';
      proc.stdout.on('data', (d) => {
        out += d;
        if (out.includes('\n')) res(JSON.parse(out.slice(0, out.indexOf('\n'))));
      });
      proc.once('exit', (c) => rej(new Error(`baton ui exited ${c}`)));
    });
    const startMs = now() - t0;
    const snap = [];
    let snapBytes = 0;
    for (let i = 0; i < 20; i++) {
      const t = now();
      snapBytes = (await (await fetch(`${url}api/snapshot`)).arrayBuffer()).byteLength;
      snap.push(now() - t);
    }
    // One open tab: a plain SSE reader that notes when each delivery's event arrives.
    const arrived = new Map();
    const waiters = [];
    const res = await fetch(`${url}api/stream`, { signal: ctrl.signal });
    void (async () => {
      const dec = new TextDecoder();
      let buf = '';
      for await (const chunk of res.body) {
        buf += dec.decode(chunk, { stream: true });
        let end;
        while ((end = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, end);
          buf = buf.slice(end + 2);
          if (!block.includes('event: baton')) continue;
          const d = JSON.parse(/^data: (.*)$/m.exec(block)[1]);
          if (d.e.event !== 'delivered') continue;
          arrived.set(d.e.id, now());
          for (const w of waiters.splice(0)) if (!w()) waiters.push(w);
        }
      }
    })().catch(() => {});
    const inTab = (id) =>
      new Promise((r) =>
        arrived.has(id)
          ? r(arrived.get(id))
          : waiters.push(() => {
              if (!arrived.has(id)) return false;
              r(arrived.get(id));
              return true;
            }),
      );
    const toPane = [];
    const toTab = [];
    for (let i = 0; i < n; i++) {
      const id = pad4(archived + i + 1);
      const from = rig.agents[(archived + i) % rig.agents.length];
      const pane = rig.note((x) => x.id === id);
      const t = rig.send(from, `ui probe ${i}`);
      const p = await pane;
      const tab = await inTab(id);
      toPane.push(p.first - t);
      toTab.push(tab - t);
      await sleep(20);
    }
    await sleep(3000); // let the start-up reads settle
    const cpu0 = cpuSeconds(proc.pid);
    const w0 = now();
    const rss = [];
    for (let s = 0; s < idleS; s++) {
      await sleep(1000);
      rss.push(rssMb(proc.pid));
    }
    const wall = (now() - w0) / 1000;
    return {
      archived,
      start_ms: round(startMs),
      snapshot: { ...stats(snap), bytes: snapBytes },
      to_pane: stats(toPane),
      to_tab: stats(toTab),
      idle_cpu_percent_one_tab: round(((cpuSeconds(proc.pid) - cpu0) / wall) * 100, 2),
      rss_mb: round(Math.max(...rss)),
    };
  } finally {
    ctrl.abort();
    if (proc && proc.exitCode === null) {
      proc.kill('SIGTERM');
      await new Promise((r) => proc.once('exit', r));
    }
    await rig.stop();
  }
}

const WORKLOADS = [
  ['floor', 'floor: the same paste with no daemon', () => floor()],
  ['latency', 'latency (enter_delay_ms 0)', () => latency()],
  [
    'latency_no_control',
    'latency without the control client (one tmux process per call)',
    () => latency({ env: { BATON_TMUX_CONTROL: '0' } }),
  ],
  [
    'latency_default_delay',
    "latency (no enter_delay_ms: the generic kind's Enter rule)",
    () => latency({ n: N_DEFAULT_DELAY, enterDelay: null }),
  ],
  ['pingpong', 'ping-pong', () => pingpong()],
  [
    'pingpong_default_delay',
    "ping-pong (no enter_delay_ms: the generic kind's Enter rule)",
    () => pingpong({ trips: Math.ceil(ROUND_TRIPS / 4), enterDelay: null }),
  ],
  ['burst', 'burst', () => burst()],
  ['idle', `idle ${IDLE_S} s`, () => idle()],
  ['ui', 'the dashboard (baton ui) over a long archive', () => ui()],
  ['flood', '2,000 invalid files at once, then a valid one (bench/intake.mjs)', () => flood()],
  [
    'flood_checker',
    "the same, an outside checker's files (garbage, invalid JSON, no message, cut off)",
    () => flood({ bodies: FLOODS.flood_checker }),
  ],
  [
    'flood_garbage',
    'the same, files that can never become valid (garbage, invalid JSON, no message, trailing junk)',
    () => flood({ bodies: FLOODS.flood_garbage }),
  ],
  [
    'held',
    `${QUICK ? '2,000' : '10,000'} files held out of turn in a folder`,
    () => held(QUICK ? { files: 2000, n: 60 } : {}),
  ],
  [
    'daemon_cpu',
    `the daemon's CPU per delivered message, 300-message ping-pong, against ${opt.against ?? AGAINST} interleaved`,
    () =>
      daemonCpuAgainst({
        commit: opt.against ?? AGAINST,
        pairs: Math.max(1, Number(opt.pairs) || 3),
        cpuProf: opt['cpu-prof'] && resolve(opt['cpu-prof']),
      }),
  ],
  [
    'machine_idle',
    'idle conversations: one machine daemon vs one daemon per conversation (bench/machine.mjs)',
    () => machineIdle(QUICK ? { counts: [1, 10, 50], seconds: 10 } : {}),
  ],
  [
    'machine_busy',
    'busy conversations: one machine daemon vs one daemon per conversation',
    () => machineBusy(QUICK ? { seconds: 10 } : {}),
  ],
  [
    'machine_quiet',
    "a quiet conversation's latency beside another's burst of 400, one machine daemon",
    () => machineQuiet(),
  ],
  [
    'scaling',
    'scaling: 1,000 and 10,000 archived messages; 2, 4 and 8 agents',
    async () => {
      const out = { archive: {}, agents: {} };
      for (const seed of [1000, 10000]) {
        say(`    ${seed} archived messages …`);
        out.archive[seed] = {
          latency: await latency({ n: Math.round(N_LATENCY / 2), seed }),
          burst: await burst({ seed }),
        };
      }
      for (const k of [2, 4, 8]) {
        say(`    ${k} agents (round_robin) …`);
        const agents = Array.from({ length: k }, (_, i) => `agent${i + 1}`);
        out.agents[k] = { latency: await latency({ n: Math.round(N_LATENCY / 2), agents, policy: 'round_robin' }) };
      }
      return out;
    },
  ],
];
const only = opt.only?.split(',').map((w) => w.trim());
const unknown = only?.filter((w) => !WORKLOADS.some(([n]) => n === w)) ?? [];
if (unknown.length) {
  process.stderr.write(`unknown workload: ${unknown.join(', ')}\n${USAGE}\n`);
  process.exit(2);
}
// The machine's workloads start up to 100 daemons and 120 recorders: run only when named in --only.
const chosen = WORKLOADS.filter(([n]) =>
  only ? only.includes(n) : !n.startsWith('machine_') && (n !== 'scaling' || !opt['skip-scaling']),
);

const started = new Date();
const runs = [];
for (let r = 1; r <= RUNS; r++) {
  say(`run ${r}/${RUNS}`);
  const res = {};
  for (const [name, what, fn] of chosen) {
    say(`  ${what} …`);
    res[name] = await fn();
  }
  runs.push(res);
}

/** Medians across runs (the machine is noisy); '-' when a workload did not run. */
const med = (get) => {
  const xs = runs
    .map((r) => {
      try {
        return get(r);
      } catch {
        return undefined;
      }
    })
    .filter((x) => x !== undefined);
  return xs.length ? median(xs) : '-';
};
const ratio = (a, b) => (typeof a === 'number' && typeof b === 'number' ? `${round(a / b, 2)}×` : '-');
const allOk = (get) =>
  runs.every((r) => {
    try {
      return get(r);
    } catch {
      return true;
    }
  })
    ? 'correct'
    : 'WRONG';
const lat = {
  p50: med((r) => r.latency.p50),
  p90: med((r) => r.latency.p90),
  p99: med((r) => r.latency.p99),
  max: med((r) => r.latency.max),
};
const fl = { p50: med((r) => r.floor.control_client.p50), p99: med((r) => r.floor.control_client.p99) };
const fp = { p50: med((r) => r.floor.one_process.p50), p99: med((r) => r.floor.one_process.p99) };
const rows = [
  ['latency p50 / p90 / p99 / max (ms)', `${lat.p50} / ${lat.p90} / ${lat.p99} / ${lat.max}`, 'p50 ≤ 10, p99 ≤ 30'],
  ['floor, control client: p50 / p99 (ms)', `${fl.p50} / ${fl.p99}`, ''],
  ['floor, one tmux process: p50 / p99 (ms)', `${fp.p50} / ${fp.p99}`, ''],
  ['latency ÷ floor (control client) p50, p99', `${ratio(lat.p50, fl.p50)} / ${ratio(lat.p99, fl.p99)}`, '≤ 2×'],
  ['latency ÷ floor (one process) p50, p99', `${ratio(lat.p50, fp.p50)} / ${ratio(lat.p99, fp.p99)}`, '≤ 2×'],
  [
    'latency, no control client: p50 / p99',
    `${med((r) => r.latency_no_control.p50)} / ${med((r) => r.latency_no_control.p99)}`,
    '',
  ],
  [
    'latency, default Enter: p50 / p99',
    `${med((r) => r.latency_default_delay.p50)} / ${med((r) => r.latency_default_delay.p99)}`,
    '',
  ],
  ['ping-pong (msg/s)', `${med((r) => r.pingpong.per_s)} (${allOk((r) => r.pingpong.correct)})`, '≥ 50'],
  ['ping-pong, default Enter (msg/s)', `${med((r) => r.pingpong_default_delay.per_s)}`, ''],
  [
    `burst ${BURST_PER_DIR * 2} (s)`,
    `${med((r) => r.burst.seconds)} (${allOk((r) => r.burst.correct)})`,
    '≤ 5, correct',
  ],
  [
    'idle CPU (% of a core) / with tmux -C',
    `${med((r) => r.idle.cpu_percent)} / ${med((r) => r.idle.cpu_percent_with_tmux_client)}`,
    '≤ 0.5',
  ],
  ['idle RSS (MB)', `${med((r) => r.idle.rss_mb)}`, '≤ 80'],
  [`ui: start-up with ${runs[0].ui?.archived ?? '-'} archived (ms)`, `${med((r) => r.ui.start_ms)}`, ''],
  ['ui: snapshot p50 / p99 (ms)', `${med((r) => r.ui.snapshot.p50)} / ${med((r) => r.ui.snapshot.p99)}`, ''],
  ['ui: file → pane / → open tab, p50 (ms)', `${med((r) => r.ui.to_pane.p50)} / ${med((r) => r.ui.to_tab.p50)}`, ''],
  ['ui: file → open tab p99 (ms)', `${med((r) => r.ui.to_tab.p99)}`, ''],
  [
    'ui: idle CPU with a tab open (%), RSS (MB)',
    `${med((r) => r.ui.idle_cpu_percent_one_tab)}, ${med((r) => r.ui.rss_mb)}`,
    '',
  ],
];
const x = (v) => (v === '-' || v === null ? '-' : `${v}×`);
for (const w of Object.keys(FLOODS).filter((w) => runs[0][w]))
  rows.push(
    [
      `${w}: 2,000 invalid → all rejected (s), ÷ before`,
      `${med((r) => r[w].all_rejected_s)} (${x(med((r) => r[w].ratio_all_rejected))})`,
      '≤ 3',
    ],
    [
      `${w}: valid one written after → pane (ms), ÷ before`,
      `${med((r) => r[w].valid_write_to_pane_ms)} (${x(med((r) => r[w].ratio_valid))}) (${allOk((r) => r[w].archived === 1 && r[w].sender_told)})`,
      '≤ 1000',
    ],
    [`${w}: daemon CPU (s), ÷ before`, `${med((r) => r[w].daemon_cpu_s)} (${x(med((r) => r[w].ratio_cpu))})`, ''],
  );
if (runs[0].held)
  rows.push([
    `held ${runs[0].held.files}: latency p50 / p99 (ms), ÷ empty folder p50`,
    `${med((r) => r.held.full.p50)} / ${med((r) => r.held.full.p99)} (${x(med((r) => r.held.ratio_p50))}; empty ${med((r) => r.held.empty.p50)}) (${allOk((r) => r.held.intact)})`,
    '≈ 1×',
  ]);
if (runs[0].daemon_cpu) {
  const d = runs[0].daemon_cpu;
  rows.push(
    [
      `daemon CPU per message (ms), medians: this tree / ${d.against}; children`,
      `${med((r) => r.daemon_cpu.new_median_ms)} / ${med((r) => r.daemon_cpu.old_median_ms)}; ${med((r) => r.daemon_cpu.new_children_ms_per_message)} (${allOk((r) => r.daemon_cpu.correct)})`,
      '',
    ],
    [
      `daemon CPU per message ÷ ${d.against}'s, ${d.pairs} pairs interleaved (pairs' spread)`,
      `${x(med((r) => r.daemon_cpu.ratio))} (${d.ratio_spread[0]}–${d.ratio_spread[1]})`,
      '≤ 0.42×',
    ],
  );
}
for (const m of runs[0].machine_idle ?? [])
  rows.push([
    `${m.conversations} idle, ${m.daemons === 'machine' ? 'one machine daemon' : `${m.processes} daemons`}: RSS (MB), CPU (%)`,
    `${med((r) => r.machine_idle.find((x) => x.conversations === m.conversations && x.daemons === m.daemons).rss_mb)}, ${med((r) => r.machine_idle.find((x) => x.conversations === m.conversations && x.daemons === m.daemons).cpu_percent)}`,
    m.conversations === 50 && m.daemons === 'machine' ? '≤ 150 MB, ≤ 1%' : '',
  ]);
for (const m of runs[0].machine_busy ?? [])
  rows.push([
    `${m.conversations} busy, ${m.daemons === 'machine' ? 'one machine daemon' : 'a daemon each'}: turns/s, p50 / p99 (ms)`,
    `${med((r) => r.machine_busy.find((x) => x.conversations === m.conversations && x.daemons === m.daemons).turns_per_s)}, ${med((r) => r.machine_busy.find((x) => x.conversations === m.conversations && x.daemons === m.daemons).turn_p50_ms)} / ${med((r) => r.machine_busy.find((x) => x.conversations === m.conversations && x.daemons === m.daemons).turn_p99_ms)} (${allOk((r) => r.machine_busy.every((x) => x.strict))})`,
    '',
  ]);
if (runs[0].machine_quiet)
  rows.push([
    'quiet conversation p50 / p99 (ms): alone; beside a burst of 400',
    `${med((r) => r.machine_quiet.alone.p50)} / ${med((r) => r.machine_quiet.alone.p99)}; ${med((r) => r.machine_quiet.beside_burst.p50)} / ${med((r) => r.machine_quiet.beside_burst.p99)} (burst ${med((r) => r.machine_quiet.burst_s)} s, ${allOk((r) => r.machine_quiet.burst_correct)})`,
    '',
  ]);
if (runs[0].scaling) {
  for (const seed of [1000, 10000]) {
    rows.push([
      `archive ${seed}: latency p50 / p99; burst (s)`,
      `${med((r) => r.scaling.archive[seed].latency.p50)} / ${med((r) => r.scaling.archive[seed].latency.p99)}; ${med((r) => r.scaling.archive[seed].burst.seconds)} (${allOk((r) => r.scaling.archive[seed].burst.correct)})`,
      '',
    ]);
  }
  for (const k of [2, 4, 8])
    rows.push([
      `${k} agents round_robin: latency p50 / p99`,
      `${med((r) => r.scaling.agents[k].latency.p50)} / ${med((r) => r.scaling.agents[k].latency.p99)}`,
      '',
    ]);
}
const shown = rows.filter((r) => /\d/.test(r[1]));
const w0 = Math.max(...shown.map((r) => r[0].length));
const w1 = Math.max(...shown.map((r) => r[1].length));
const table = [
  `baton bench — ${started.toISOString()} — ${cpus().length} cores, node ${process.version}, ${(await run('tmux', ['-V'])).stdout.trim()}, ${RUNS === 1 ? '1 run' : `median of ${RUNS} runs`}${QUICK ? ' (quick)' : ''}`,
  '',
  `| ${'measure'.padEnd(w0)} | ${'result'.padEnd(w1)} | target |`,
  `| ${'-'.repeat(w0)} | ${'-'.repeat(w1)} | ------ |`,
  ...shown.map(([a, b, c]) => `| ${a.padEnd(w0)} | ${b.padEnd(w1)} | ${c} |`),
].join('\n');
process.stdout.write(`${table}\n`);
const out = opt.out ?? join(ROOT, 'bench', 'out', 'latest.json');
mkdirSync(dirname(out), { recursive: true });
const json = JSON.stringify(
  { started: started.toISOString(), node: process.version, cores: cpus().length, runs, table },
  null,
  2,
);
writeFileSync(out, json);
if (!opt.out) writeFileSync(join(ROOT, 'bench', 'out', `${started.toISOString().replace(/[:.]/g, '-')}.json`), json);
say(`results: ${out}`);
