/**
 * `baton doctor`: checks tmux, the agents' commands, the folders, the daemon, and the state against the
 * archive (the archive is the record), plus what the bus itself knows to check. `fail` makes it exit 1.
 */
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import type { Admin, Archive, ArchiveView, Checkup, Liveness, Status } from '../../bus/bus.js';
import { openBus } from '../../bus/open.js';
import { isLocal, type Config } from '../../config/config.js';
import { StateError, type State } from '../../core/state.js';
import { KINDS } from '../../terminal/kinds.js';
import { onPath, programOf } from '../../terminal/program.js';
import { Tmux } from '../../terminal/tmux.js';

/** `fail` makes doctor exit 1; `warn` is worth knowing but not a fault (e.g. no agent CLI: --demo works). */
export interface Check {
  name: string;
  level: 'ok' | 'warn' | 'fail';
  detail: string;
}

const level = (ok: boolean, otherwise: 'warn' | 'fail'): Check['level'] => (ok ? 'ok' : otherwise);

async function checkState(bus: Archive & Status): Promise<Check> {
  let view: ArchiveView;
  let have: State | null;
  try {
    view = await bus.archiveView();
    have = await bus.readState();
  } catch (err) {
    return { name: 'state.json', level: 'fail', detail: (err as StateError).message };
  }
  const want = view.state;
  const problems = view.gaps ? [view.gaps] : [];
  if (!have) {
    const detail = want.message_counter
      ? 'missing (the daemon rebuilds it from the archive at start)'
      : 'not created yet';
    return { name: 'state.json', level: level(!problems.length, 'fail'), detail: [detail, ...problems].join('; ') };
  }
  // The last record never stamped delivered, state.json one behind: a delivery cut short, which the
  // daemon finishes at start (unflagged, since nothing was typed yet).
  if (!problems.length && have.message_counter === want.message_counter - 1 && view.last && !view.last.delivered_at) {
    return {
      name: 'state.json',
      level: 'warn',
      detail:
        `one message behind the archive: a daemon stopped while delivering ${want.last_message_id}; ` +
        'the next daemon start finishes it (no repair needed)',
    };
  }
  const keys = ['current_turn', 'last_message_id', 'message_counter', 'pending_reply_to'] as const;
  const wrong = keys
    .filter((k) => have[k] !== want[k])
    .map((k) => `${k} is ${JSON.stringify(have[k])}, the archive says ${JSON.stringify(want[k])}`);
  const all = [...problems, ...wrong];
  return {
    name: 'state.json',
    level: level(all.length === 0, 'fail'),
    detail: all.join('; ') || `agrees with the archive (${want.message_counter} messages)`,
  };
}

export async function diagnose(
  config: Config,
  bus: Status & Liveness & Archive & Checkup = openBus(config),
): Promise<Check[]> {
  const root = config.messageDir;
  const rejected = join(root, 'rejected');
  const checks: Check[] = [];
  const add = (name: string, lv: Check['level'], detail: string) => checks.push({ name, level: lv, detail });
  const version = await new Tmux().version();
  add('tmux', level(!!version, 'fail'), version ?? 'not installed (apt-get install -y tmux)');
  for (const name of config.order) {
    const a = config.agents[name]!;
    if (a.target || !isLocal(config, name)) continue; // another machine's agent: its own doctor checks it
    const command = a.command ?? KINDS[a.kind].command;
    const program = command && programOf(command);
    const ok = !!program && onPath(program, a.cwd);
    const missing = command
      ? `"${program}" is not on PATH (baton up --demo runs demo agents instead)`
      : `agents.${name}.command is required for kind ${a.kind}`;
    add(`agent ${name}`, level(ok, 'warn'), ok ? `"${command}"` : missing);
  }
  // On the PostgreSQL bus only this machine's agents' folders (relayed into the database) and rejected/ are on disk.
  const folders =
    config.bus.kind === 'postgres'
      ? [root, rejected, ...config.directions.filter((d) => isLocal(config, d.from)).map((d) => d.dir)]
      : [root, join(root, 'archive'), rejected, ...config.directions.map((d) => d.dir)];
  for (const dir of folders) {
    const rwx = constants.R_OK | constants.W_OK | constants.X_OK;
    const ok = await access(dir, rwx).then(
      () => true,
      () => false,
    );
    const detail = ok ? 'readable and writable' : 'missing or not writable (baton up or baton daemon creates it)';
    add(`folder ${dir}`, level(ok, 'warn'), detail);
  }
  const d = await bus.daemon();
  add('daemon', 'ok', d.running ? `running (pid ${d.pid})` : 'not running');
  checks.push(await checkState(bus));
  const st = await bus.readState().catch(() => null);
  if (st?.finished)
    add('conversation', 'ok', `finished (${st.finished.reason}) at ${st.finished.at}; "baton resume" continues it`);
  else if (st?.stalled)
    add('conversation', 'warn', `stalled: ${st.current_turn} stayed silent after ${st.nudges ?? 0} reminders`);
  const waiting = await bus.requestsWaiting();
  const unanswered = `${waiting} waiting in ${bus.where} with no daemon to answer them (the next daemon start does)`;
  if (waiting && !d.running) add('requests', 'warn', unanswered);
  checks.push(...(await bus.checks(d.running)));
  return checks;
}

/**
 * `doctor --repair`: rebuild the state from the archive when it disagrees (the archive is the record; the
 * state is derived from it), under the daemon's lease so no daemon runs meanwhile. A state one behind a
 * cut-short delivery is left alone: the daemon finishes that delivery at its next start (unflagged).
 */
export async function repair(bus: Admin & Archive & Status): Promise<string> {
  // Holding the lease means no daemon can start (or be running) while the state is rewritten.
  return bus.exclusive(async () => {
    const { state, gaps } = await bus.archiveView();
    if (gaps) throw new StateError(`cannot rebuild state.json: ${gaps}`);
    const check = await checkState(bus);
    if (check.level !== 'fail') return `nothing to repair (state.json: ${check.detail})`;
    await bus.overwriteState(state);
    return `state.json rebuilt: ${state.current_turn}'s turn after ${state.last_message_id ?? 'no messages'}`;
  });
}
