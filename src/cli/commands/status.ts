import { collectStatus, formatStatus } from '../../app/status.js';
import { configFrom, noPositionals, type CommandSpec } from '../command.js';

export const status: CommandSpec = {
  usage: 'status [--json]',
  summary: 'whose turn it is, what is waiting, whether the daemon and panes are alive',
  options: { json: { type: 'boolean' } },
  examples: ['baton status', 'baton status --json | jq .current_turn'],
  help: `
Reads state.json, the direction folders, rejected/ and the daemon's lock (on the PostgreSQL bus: the
database), and asks tmux about each pane of this machine's agents. Changes nothing.

  --json   print one JSON object: current_turn, message_counter, last_message_id, pending_reply_to,
           held (folder → files waiting), waiting (folder → {count, reason, text, …}: why they
           wait — out_of_turn, paused, finished, awaiting_approval, other_machine, no_daemon,
           receiver_not_ready, not_allowed, in_turn; docs/reference.md),
           rejected (count), daemon {running, pid}, policy, max_turns, turn_started_at,
           seconds_in_turn, nudges, stalled, finished ({reason, at} or null), pending (moderated),
           paused ({at} or null), demo, config (the file, or null for the built-in default),
           agents (name → {alive, target, pane, dead, command, last_activity, problem, kind, demo, host,
                   hooks: {state: busy|idle|permission, since} or null,
                   screen: {state: ready|holding|dialog|unknown, busy?, detail?} or null}),
           message_dir (on the PostgreSQL bus: the database, password hidden), bus {kind, conversation},
           hosts (machine → {alive, pid, last_heartbeat, since, agents})`,
  async run(inv) {
    noPositionals(inv);
    const report = await collectStatus(configFrom(inv));
    process.stdout.write(inv.values.json ? `${JSON.stringify(report, null, 2)}\n` : formatStatus(report));
    return 0;
  },
};
