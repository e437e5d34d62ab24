import type { Check } from '../../app/status/doctor.js';
import { noPositionals, type CommandSpec, type Invocation } from '../command.js';

export const doctor: CommandSpec = {
  usage: 'doctor [--repair] [--json]',
  summary: 'check tmux, agent commands, folders, the lock and state.json; rebuild state.json',
  reads: (inv) => !inv.values.repair,
  options: { repair: { type: 'boolean' }, json: { type: 'boolean' } },
  examples: ['baton doctor', 'baton doctor --repair'],
  help: `
Checks that tmux is installed, each agent's command is on PATH, the message folders exist and are
writable, whether a daemon holds the lock, and that state.json agrees with archive/ (message_counter = N,
last_message_id = pending_reply_to = msg_N, current_turn = the receiver of msg_N).

  --repair   rebuild state.json from the archive (the archive is the record; state is derived from
             it). Refused with exit 3 while a live daemon holds the message folder: stop it first.
  --json     print {"ok", "checks": [{"name", "level": "ok"|"warn"|"fail", "detail"}], "repaired"}

Only "fail" checks (tmux missing, state.json corrupt or disagreeing with the archive, a config.json that
does not load) make it exit 1; an agent CLI that is not installed or a folder not created yet is a warning.
With no config found it checks the built-in default and says so. A config.json that does not load: the
"config" check fails naming the error, and the "daemon" check says what runs for that file.`,
  async run(inv) {
    const { diagnose, repair } = await import('../../app/status/doctor.js');
    const { openBus } = await import('../../bus/open.js');
    noPositionals(inv);
    const loaded = (await import('../inputs.js')).configOrBroken(inv, { fallback: 'default' });
    if (!loaded.ok) return brokenDoctor(inv, loaded.file, loaded.error.line);
    const config = loaded.config;
    const bus = openBus(config);
    const repaired = inv.values.repair ? await repair(bus) : null;
    const checks = [
      ...(config.file ? [] : [check('config', 'warn', 'none found: checking the built-in default (baton init)')]),
      ...(await diagnose(config, bus)),
    ];
    return report(inv, checks, repaired);
  },
};

const check = (name: string, level: Check['level'], detail: string): Check => ({ name, level, detail });

function report(inv: Invocation, checks: Check[], repaired: string | null): number {
  const ok = checks.every((c) => c.level !== 'fail');
  if (inv.values.json) process.stdout.write(`${JSON.stringify({ ok, checks, repaired }, null, 2)}\n`);
  else {
    for (const c of checks)
      process.stdout.write(`${{ ok: 'ok  ', warn: 'warn', fail: 'FAIL' }[c.level]}  ${c.name}: ${c.detail}\n`);
    if (repaired) process.stdout.write(`${repaired}\n`);
  }
  return ok ? 0 : 1;
}

/** A config.json that does not load: that check fails, and what runs for it is said (what-runs.ts). */
async function brokenDoctor(inv: Invocation, file: string, error: string): Promise<number> {
  const { whatRuns } = await import('../../app/status/what-runs.js');
  const runs = await whatRuns(file);
  const daemon = !runs.record
    ? check('daemon', 'warn', 'no daemon recorded what it runs for this file on this machine')
    : runs.daemon?.alive
      ? check('daemon', 'ok', `running (pid ${runs.daemon.pid}) with its last good config`)
      : check('daemon', 'ok', 'not running');
  const sessions = check('sessions', 'ok', runs.sessions.join(', ') || 'none');
  return report(inv, [check('config', 'fail', error), daemon, sessions], null);
}
