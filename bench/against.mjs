// The daemon's CPU per delivered message, this tree against an earlier commit's, measured in ONE run.
//
// Why: a figure from one day set against a figure from another says as much about the machine as about
// the code. The same code measured 2.47–2.63 ms per message one day and 4.9 ms another (this 2-core
// machine is shared, and its speed drifts by the hour), so "N ms, ÷ before" proved nothing. Only a ratio
// taken side by side, on the same machine in the same minutes, does.
//
// How: the earlier commit is built once into .cache/bench-against/<commit>/ (git archive, npm ci, npm run
// build; .cache/ is never committed, a build is reused until that folder is removed). Then both daemons
// run the same workload — bench/intake.mjs daemonCpu: two stand-in agents (bench/recorder.mjs, the generic
// kind, the only kind the bench's agents are) answering each other at once for 300 messages at
// delivery.enter_delay_ms 0, the daemon's utime + stime from /proc — interleaved in pairs, the earlier one
// first (A B A B …), so the machine's drift falls on both alike. Each run's folder is removed only after the
// last pair: on a file system that skips the inodes freed in the last minutes when it makes a file (ext4
// without a journal, this machine's: docs/performance.md), the ~300 records a run left, removed at once,
// made every file the following runs created cost more — both daemons' figures grew run after run with the
// bench's own clean-up, not with their own work. Reported: each run's CPU ms per message, both medians,
// their ratio (this tree ÷ the earlier one: below 1 is cheaper) and the spread of the pairs' own ratios.
// With --cpu-prof DIR, the earlier daemon's profiles go to DIR/<commit>/.
//
//   node bench/bench.mjs --only daemon_cpu [--against a4211c7] [--pairs 3] [--cpu-prof DIR]
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { daemonCpu } from './intake.mjs';
import { ROOT, median, round, say } from './rig.mjs';

/** The week-old reference the cost of a message is held against ("a smaller, faster house"). */
export const AGAINST = 'a4211c7';

/** dist/cli.js of `commit`, built once into .cache/bench-against/<commit>/ (a build cut short is never reused). */
export function buildOf(commit) {
  const full = execFileSync('git', ['rev-parse', '--verify', `${commit}^{commit}`], { cwd: ROOT, encoding: 'utf8' })
    .trim()
    .slice(0, 12);
  const home = join(ROOT, '.cache', 'bench-against');
  const dir = join(home, full);
  const cli = join(dir, 'dist', 'cli.js');
  if (existsSync(join(dir, '.built'))) return { commit: full, cli };
  say(`    building ${full} into ${dir} (once) …`);
  const tmp = join(home, `.${full}.${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const sh = (cmd, args) => execFileSync(cmd, args, { cwd: tmp, stdio: ['ignore', 'ignore', 'inherit'] });
  sh('sh', ['-c', `git -C "${ROOT}" archive ${full} | tar -x`]);
  sh('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund']);
  sh('npm', ['run', 'build']);
  writeFileSync(join(tmp, '.built'), `${new Date().toISOString()}\n`);
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
  return { commit: full, cli };
}

/** `pairs` pairs of daemonCpu runs, the earlier commit's daemon first in each: medians and their ratio. */
export async function daemonCpuAgainst({ commit = AGAINST, pairs = 3, messages = 300, cpuProf } = {}) {
  const old = buildOf(commit);
  const oldFlags = cpuProf ? `--cpu-prof --cpu-prof-dir=${join(cpuProf, old.commit)}` : undefined;
  const runs = { old: [], new: [] };
  const kept = [];
  try {
    for (let i = 1; i <= pairs; i++) {
      const a = await daemonCpu({ messages, cli: old.cli, nodeFlags: oldFlags, kept });
      const b = await daemonCpu({ messages, kept });
      say(
        `    pair ${i}/${pairs}: ${old.commit} ${a.cpu_ms_per_message} ms, this tree ${b.cpu_ms_per_message} ms per message`,
      );
      runs.old.push(a);
      runs.new.push(b);
    }
  } finally {
    for (const rig of kept) rig.remove();
  }
  const per = (xs) => xs.map((r) => r.cpu_ms_per_message);
  const pairRatios = runs.new.map((b, i) => round(b.cpu_ms_per_message / runs.old[i].cpu_ms_per_message, 3));
  const mOld = median(per(runs.old));
  const mNew = median(per(runs.new));
  return {
    against: old.commit,
    messages,
    pairs,
    old_ms_per_message: per(runs.old),
    new_ms_per_message: per(runs.new),
    old_median_ms: mOld,
    new_median_ms: mNew,
    ratio: round(mNew / mOld, 3),
    pair_ratios: pairRatios,
    ratio_spread: [Math.min(...pairRatios), Math.max(...pairRatios)],
    new_children_ms_per_message: median(runs.new.map((r) => r.children_cpu_ms_per_message)),
    correct: [...runs.old, ...runs.new].every((r) => r.correct),
  };
}
