import { constants } from 'node:fs';
import { access, readdir } from 'node:fs/promises';
import type { Config } from '../config.js';
import { layout, type Layout } from '../layout.js';
import { acquireLock, daemonStatus, LockHeldError, readHolder } from '../lock.js';
import { readArchiveView, type ArchiveView } from '../recovery.js';
import { readState, StateError, writeState, type State } from '../state.js';
import { configFrom, noPositionals, tmux, type CommandSpec } from './common.js';
import { onPath, programOf } from '../program.js';
import { KINDS } from '../kinds.js';
import { pendingRequests } from '../requests.js';

/** `fail` makes doctor exit 1; `warn` is worth knowing but not a fault (e.g. no agent CLI: --demo works). */
interface Check {
  name: string;
  level: 'ok' | 'warn' | 'fail';
  detail: string;
}

const level = (ok: boolean, otherwise: 'warn' | 'fail'): Check['level'] => (ok ? 'ok' : otherwise);

async function checkState(config: Config, l: Layout): Promise<Check> {
  let view: ArchiveView;
  let have: State | null;
  try {
    view = await readArchiveView(config, l);
  } catch (err) {
    return { name: 'state.json', level: 'fail', detail: (err as StateError).message };
  }
  const want = view.state;
  const problems = view.gaps ? [view.gaps] : [];
  try {
    have = await readState(l.state);
  } catch (err) {
    return { name: 'state.json', level: 'fail', detail: (err as StateError).message };
  }
  if (!have) {
    const detail = want.message_counter ? 'missing (the daemon rebuilds it from the archive at start)' : 'not created yet';
    return { name: 'state.json', level: level(!problems.length, 'fail'), detail: [detail, ...problems].join('; ') };
  }
  // The last record never stamped delivered, state.json one behind: a delivery cut short, which the
  // daemon finishes at start (unflagged, since nothing was typed yet).
  if (!problems.length && have.message_counter === want.message_counter - 1 && view.last && !view.last.delivered_at) {
    return { name: 'state.json', level: 'warn', detail: `one message behind the archive: a daemon stopped while delivering ${want.last_message_id}; the next daemon start finishes it (no repair needed)` };
  }
  const keys = ['current_turn', 'last_message_id', 'message_counter', 'pending_reply_to'] as const;
  const wrong = keys.filter((k) => have[k] !== want[k]).map((k) => `${k} is ${JSON.stringify(have[k])}, the archive says ${JSON.stringify(want[k])}`);
  const all = [...problems, ...wrong];
  return { name: 'state.json', level: level(all.length === 0, 'fail'), detail: all.join('; ') || `agrees with the archive (${want.message_counter} messages)` };
}

export async function diagnose(config: Config): Promise<Check[]> {
  const l = layout(config);
  const t = tmux();
  const checks: Check[] = [];
  const version = await t.version();
  checks.push({ name: 'tmux', level: level(!!version, 'fail'), detail: version ?? 'not installed (apt-get install -y tmux)' });
  for (const name of config.order) {
    const a = config.agents[name]!;
    if (a.target) continue;
    const command = a.command ?? KINDS[a.kind].command;
    const program = command && programOf(command);
    const ok = !!program && onPath(program, a.cwd);
    checks.push({ name: `agent ${name}`, level: level(ok, 'warn'), detail: ok ? `"${command}"` : command ? `"${program}" is not on PATH (baton up --demo runs demo agents instead)` : `agents.${name}.command is required for kind ${a.kind}` });
  }
  for (const dir of [l.root, l.archive, l.rejected, ...config.directions.map((d) => d.dir)]) {
    const ok = await access(dir, constants.R_OK | constants.W_OK | constants.X_OK).then(() => true, () => false);
    checks.push({ name: `folder ${dir}`, level: level(ok, 'warn'), detail: ok ? 'readable and writable' : 'missing or not writable (baton up or baton daemon creates it)' });
  }
  const d = await daemonStatus(l);
  checks.push({ name: 'daemon', level: 'ok', detail: d.running ? `running (pid ${d.pid})` : 'not running' });
  checks.push(await checkState(config, l));
  const st = await readState(l.state).catch(() => null);
  if (st?.finished) checks.push({ name: 'conversation', level: 'ok', detail: `finished (${st.finished.reason}) at ${st.finished.at}; "baton resume" continues it` });
  else if (st?.stalled) checks.push({ name: 'conversation', level: 'warn', detail: `stalled: ${st.current_turn} stayed silent after ${st.nudges ?? 0} reminders` });
  const waiting = await pendingRequests(l.requests);
  if (waiting.length && !d.running) {
    checks.push({ name: 'requests', level: 'warn', detail: `${waiting.length} in ${l.requests} with no daemon to answer them (the next daemon start does)` });
  }
  if (!d.running) {
    const entries = await readdir(l.claims, { recursive: true, withFileTypes: true }).catch(() => []);
    const claimed = entries.filter((e) => !e.isDirectory()).length;
    checks.push({ name: 'claims', level: level(claimed === 0, 'warn'), detail: claimed ? `${claimed} entries in ${l.claims} (the next daemon start puts them back)` : 'none' });
  }
  return checks;
}

export const doctor: CommandSpec = {
  usage: 'doctor [--repair] [--json]',
  summary: 'check tmux, agent commands, folders, the lock and state.json; rebuild state.json',
  options: { repair: { type: 'boolean' }, json: { type: 'boolean' } },
  examples: ['baton doctor', 'baton doctor --repair'],
  help: `
Checks that tmux is installed, each agent's command is on PATH, the message folders exist and are
writable, whether a daemon holds the lock, and that state.json agrees with archive/ (message_counter = N,
last_message_id = pending_reply_to = msg_N, current_turn = the receiver of msg_N).

  --repair   rebuild state.json from the archive (the archive is the record; state is derived from
             it). Refused with exit 3 while a live daemon holds the message folder: stop it first.
  --json     print {"ok", "checks": [{"name", "level": "ok"|"warn"|"fail", "detail"}], "repaired"}

Only "fail" checks (tmux missing, state.json corrupt or disagreeing with the archive) make it exit 1;
an agent CLI that is not installed or a folder not created yet is a warning.`,
  async run(inv) {
    noPositionals(inv);
    const config = configFrom(inv);
    const l = layout(config);
    let repaired: string | null = null;
    if (inv.values.repair) {
      // Taking the daemon's lock means no daemon can start (or be running) while state.json is rewritten.
      const lock = await acquireLock(l, () => {}).catch((err) => {
        if (err instanceof LockHeldError) throw new LockHeldError(l.root, readHolder(l));
        throw err;
      });
      try {
        const { state, gaps } = await readArchiveView(config, l);
        if (gaps) throw new StateError(`cannot rebuild state.json: ${gaps}`);
        const check = await checkState(config, l);
        if (check.level === 'fail') {
          await writeState(l.state, state);
          repaired = `state.json rebuilt: ${state.current_turn}'s turn after ${state.last_message_id ?? 'no messages'}`;
        } else {
          // Left as it is: a state one behind a cut-short delivery is the daemon's to finish (unflagged).
          repaired = `nothing to repair (state.json: ${check.detail})`;
        }
      } finally {
        await lock.release();
      }
    }
    const checks = await diagnose(config);
    const ok = checks.every((c) => c.level !== 'fail');
    if (inv.values.json) {
      process.stdout.write(`${JSON.stringify({ ok, checks, repaired }, null, 2)}\n`);
    } else {
      for (const c of checks) process.stdout.write(`${{ ok: 'ok  ', warn: 'warn', fail: 'FAIL' }[c.level]}  ${c.name}: ${c.detail}\n`);
      if (repaired) process.stdout.write(`${repaired}\n`);
    }
    return ok ? 0 : 1;
  },
};
