import { diagnose, repair } from '../../app/doctor.js';
import { openBus } from '../../bus/open.js';
import { configFrom, noPositionals, type CommandSpec } from '../command.js';

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
    const bus = openBus(config);
    const repaired = inv.values.repair ? await repair(bus) : null;
    const checks = await diagnose(config, bus);
    const ok = checks.every((c) => c.level !== 'fail');
    if (inv.values.json) {
      process.stdout.write(`${JSON.stringify({ ok, checks, repaired }, null, 2)}\n`);
    } else {
      for (const c of checks)
        process.stdout.write(`${{ ok: 'ok  ', warn: 'warn', fail: 'FAIL' }[c.level]}  ${c.name}: ${c.detail}\n`);
      if (repaired) process.stdout.write(`${repaired}\n`);
    }
    return ok ? 0 : 1;
  },
};
