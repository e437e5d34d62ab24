// The intake's workloads: how the daemon copes with many files in a folder, and what one delivery costs it.
//
//   flood:      2,000 invalid files dropped at once into one outgoing folder, then a valid message written
//               after them (its name sorts after theirs). Time until every one is in rejected/ with its note,
//               and the valid one's write → pane. Half of them are a message cut off, which could still become
//               valid: those wait settle_ms and keep their place, so the valid one waits for them.
//   flood_checker, flood_garbage: the same with what an outside checker would drop (FLOODS), with and
//               without a message cut off.
//   held:       10,000 valid files held out of turn in a folder the turn never reaches (handoff between two
//               agents, a third one's folder full); rename → pane p50 between the other two, against the
//               same with that folder empty.
//   daemon_cpu: a 300-message ping-pong at enter_delay_ms 0; the daemon's utime + stime (/proc/<pid>/stat,
//               the kernel's counters of that process) per delivered message, and its reaped children's.
//               bench.mjs runs it against an earlier commit's daemon, interleaved (bench/against.mjs).
//
// The floods are reported against BASELINE: the same workload measured on the 2-core machine this project
// is built on with the code before the intake was reworked (chokidar, async file calls; one run), so a
// ratio below 1 is better. `node bench/bench.mjs --only flood,held,daemon_cpu [--runs 3] [--cpu-prof DIR]`.
import { mkdirSync, readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Rig, now, pad4, pct, round, stats } from './rig.mjs';

/** Measured before the change (see the module header): the ratio's denominator. */
export const BASELINE = {
  flood_all_rejected_s: 28.0,
  flood_valid_ms: 27590,
  flood_cpu_s: 42.9,
};

const ratio = (x, base) => (typeof x === 'number' && typeof base === 'number' ? round(x / base, 2) : null);

/** The bad files of each flood, in turn. */
export const FLOODS = {
  // Half the start of a message cut off (it could still become valid: it waits settle_ms and keeps its
  // place), half JSON that is no message.
  flood: ['{"content": "cut off', '{"note": "not a message"}'],
  // What an outside checker would drop: garbage text, invalid JSON, JSON that is no message, JSON cut off.
  flood_checker: ['garbage, not JSON', '{"content": "x",}', '{"note": "not a message"}', '{"content": "cut off'],
  // The same without the cut-off one: files that can never become valid, none of them waits.
  flood_garbage: ['garbage, not JSON', '{"content": "x",}', '{"note": "not a message"}', '{"content": "x"} more'],
};

/** `bad` invalid files (`bodies` in turn), then one valid message after them. */
export async function flood({ bad = 2000, settleMs = 1000, bodies = FLOODS.flood } = {}) {
  const rig = new Rig({ settleMs });
  try {
    await rig.recorders();
    await rig.daemon();
    const dir = rig.outDir.claude1;
    const c0 = procTimes(rig.proc.pid);
    const t0 = now();
    for (let i = 0; i < bad; i++) {
      const name = `msg_${process.hrtime.bigint()}_${i}.json`;
      writeFileSync(join(dir, `.${name}.tmp`), bodies[(i + 1) % bodies.length]);
      renameSync(join(dir, `.${name}.tmp`), join(dir, name));
    }
    const written = now();
    const got = rig.note((x) => x.id === 'msg_0001', 120_000);
    const tv = rig.send('claude1', 'the valid one, written after the flood');
    const rejected = join(rig.messages, 'rejected');
    let all = null;
    for (let i = 0; all === null; i++) {
      const notes = readdirSync(rejected).filter((n) => n.endsWith('.error.json')).length;
      if (notes >= bad) all = now();
      else if (i > 6000) throw new Error(`only ${notes} of ${bad} rejected after 5 min`);
      else await sleep(50);
    }
    const valid = await got;
    const c1 = procTimes(rig.proc.pid);
    // Told to its sender: a notice of baton's own typed into claude1's pane.
    const told = await rig
      .note((x) => x.agent === 'claude1' && !/^msg_/.test(x.id), 30_000, true)
      .then(
        () => true,
        () => false,
      );
    const all_rejected_s = round((all - t0) / 1000, 2);
    const valid_ms = round(valid.first - tv, 1);
    return {
      bad,
      settle_ms: settleMs,
      write_s: round((written - t0) / 1000, 2),
      all_rejected_s,
      valid_write_to_pane_ms: valid_ms,
      daemon_cpu_s: round((c1.self - c0.self) / 1000, 2),
      archived: rig.archive().length,
      sender_told: told,
      ratio_all_rejected: ratio(all_rejected_s, BASELINE.flood_all_rejected_s),
      ratio_valid: ratio(valid_ms, BASELINE.flood_valid_ms),
      ratio_cpu: ratio(round((c1.self - c0.self) / 1000, 2), BASELINE.flood_cpu_s),
    };
  } finally {
    await rig.stop();
  }
}

const HANDOFF = {
  agents: ['claude1', 'claude2', 'claude3'],
  policy: 'handoff',
  directions: {
    claude1_to_claude2: ['claude1', 'claude2'],
    claude2_to_claude1: ['claude2', 'claude1'],
    claude3_to_claude1: ['claude3', 'claude1'],
  },
};

/** rename → pane between claude1 and claude2 while claude3's folder holds `files` messages out of turn. */
async function heldLatency(files, n) {
  const rig = new Rig(HANDOFF);
  try {
    const dir = join(rig.messages, 'claude3_to_claude1');
    mkdirSync(dir, { recursive: true });
    for (let i = 0; i < files; i++)
      writeFileSync(join(dir, `held_${String(i).padStart(6, '0')}.json`), JSON.stringify({ content: `held ${i}` }));
    await rig.recorders();
    await rig.daemon();
    // Start-up looks at every held file once (one `held` event each): measured after that.
    const heldEvents = () => rig.events().filter((e) => e.event === 'held').length;
    for (let i = 0; files && heldEvents() < files; i++) {
      if (i > 3000) throw new Error('the held files were not all looked at in 5 min');
      await sleep(100);
    }
    const lat = [];
    for (let i = 0; i < n; i++) {
      const id = pad4(i + 1);
      const got = rig.note((x) => x.id === id);
      const t0 = rig.send(i % 2 ? 'claude2' : 'claude1', `latency probe ${i}: ${'lorem ipsum '.repeat(20)}`);
      lat.push((await got).first - t0);
      await sleep(20);
    }
    const left = readdirSync(dir).length;
    return { ...stats(lat), still_held: left };
  } finally {
    await rig.stop();
  }
}

/** The same probes with claude3's folder empty and holding `files`: p50 against p50. */
export async function held({ files = 10_000, n = 100 } = {}) {
  const empty = await heldLatency(0, n);
  const full = await heldLatency(files, n);
  return { files, empty, full, ratio_p50: ratio(full.p50, empty.p50), intact: full.still_held === files };
}

/** utime, stime, cutime, cstime of `pid` in ms (/proc/<pid>/stat fields 14–17, in clock ticks of 10 ms). */
function procTimes(pid) {
  const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = s.slice(s.lastIndexOf(')') + 2).split(' '); // f[0] is field 3
  const tick = 10;
  return { self: (Number(f[11]) + Number(f[12])) * tick, children: (Number(f[13]) + Number(f[14])) * tick };
}

/**
 * Two recorders answering each other at once for `messages` messages, enter_delay_ms 0: the daemon's CPU per
 * message. `kept`: the run's folder is not removed but pushed there (its caller removes them later).
 */
export async function daemonCpu({ messages = 300, cli, nodeFlags, kept } = {}) {
  const rig = new Rig({ enterDelay: 0, cli, nodeFlags });
  try {
    await rig.recorders({ reply: true, until: messages });
    await rig.daemon();
    await sleep(1000); // start-up's own work is not counted
    const c0 = procTimes(rig.proc.pid);
    const last = rig.note((x) => x.id === pad4(messages), 180_000);
    const t0 = rig.send('claude1', 'ping');
    const end = await last;
    await rig.stamped(pad4(messages)); // its stamp is the last of the daemon's work a message costs
    const c1 = procTimes(rig.proc.pid);
    const per = round((c1.self - c0.self) / messages, 2);
    // The daemon's own share of each delivery, first sight → paste done (its `delivered` events).
    const own = rig
      .events()
      .filter((e) => e.event === 'delivered')
      .map((e) => e.latency_ms);
    return {
      messages,
      per_s: round(messages / ((end.done - t0) / 1000)),
      cpu_ms_per_message: per,
      children_cpu_ms_per_message: round((c1.children - c0.children) / messages, 2),
      daemon_p50_ms: round(pct(own, 50), 2),
      correct: rig.archive().length === messages,
    };
  } finally {
    await rig.stop({ keep: !!kept });
    kept?.push(rig);
  }
}
