import { noPositionals, type CommandSpec } from '../command.js';

export const status: CommandSpec = {
  usage: 'status [--json]',
  summary: 'whose turn it is, what is waiting, whether the daemon and panes are alive',
  reads: true,
  options: { json: { type: 'boolean' } },
  examples: ['baton status', 'baton status --json | jq .current_turn'],
  help: `
Reads state.json, the direction folders, rejected/ and the daemon's lock (on the PostgreSQL bus: the
database), and asks tmux about each pane of this machine's agents. Changes nothing.

  --json   print one JSON object: current_turn, message_counter, last_message_id, pending_reply_to,
           held (folder → files waiting), waiting (folder → {count, reason, text, …}: why they
           wait — out_of_turn, paused, finished, awaiting_approval, other_machine, no_daemon,
           receiver_not_ready, not_allowed, in_turn; docs/reference.md),
           rejected (count), daemon {running, pid}, skipped ({pid, problem}: the machine's daemon has
           it in its registry but skipped it — its config broken, its folder unreadable, its lease held
           by another daemon — or null), registry_problem (the machine's registry does not read:
           why, or null), policy (the one the daemon runs), policy_in_file (config.json's when
           it says another, else null), max_turns, turns_base (the count at the last resume of a
           finished conversation: max_turns counts from there), turn_started_at,
           seconds_in_turn (null when no turn clock runs: finished, paused), nudges, stalled, finished ({reason, at} or null), pending (moderated),
           paused ({at} or null), blocked ({agent, since, kind, question, choices?, dialog?}: the
           turn holder waits at a dialog for a person — kind permission|question|trust|login|other —
           or null), demo, config (the file, or null for the built-in default),
           agents (name → {alive, target, pane, dead, command, last_activity, problem, kind, demo, host,
                   hooks: {state: busy|idle|permission, since} or null,
                   screen: {state: ready|holding|dialog|unknown, busy?, detail?} or null,
                   dialog: {since, kind, question, source: hook|screen, choices?, dialog?} or null}),
           message_dir (on the PostgreSQL bus: the database, password hidden), bus {kind, conversation},
           hosts (machine → {alive, pid, last_heartbeat, since, agents}),
           running_config (what this machine's daemon runs: {pid, turns, file: {state: same|unread|
                   restart|invalid, keys?, error?}}, or null),
           notify (each sink of config.json's notify: {label, kind, target, events, last_success
                   {at, event}, last_failure {at, event, error}, sent, failed, folded, dropped})

The config is found as for every command (--config, BATON_CONFIG, config.json here or in the nearest
folder above); with none there is no conversation here: it says so on stderr with the nearest hint (a
conversation in a folder below, "baton init", "baton ls") and exits 2. A config.json that does not load:
it prints on stderr the error in one line and what runs (the daemon that recorded itself beside the
file, the sessions of its message folder, and why the machine's daemon skipped it), nothing on stdout,
and exits 2.`,
  async run(inv) {
    const { collectStatus, formatStatus } = await import('../../app/status/status.js');
    const { skippedConfigFile } = await import('../../app/machine/skipped.js');
    const { brokenStatus, whatRuns } = await import('../../app/status/what-runs.js');
    const { locateConfig } = await import('../../config/load.js');
    noPositionals(inv);
    const source = locateConfig(inv.values.config as string | undefined);
    if (source.file === null) {
      // No config.json here nor above: no conversation to show (a made-up default once said "not running", exit 0).
      const { log } = await import('../../lib/log.js');
      const { noConversationHint } = await import('../../app/status/no-conversation.js');
      const { stateDir } = await import('../../app/machine/registry.js');
      const where = process.env.BATON_HOME
        ? `in ${source.baseDir} ($BATON_HOME)`
        : `in ${source.baseDir} or any folder above it`;
      // On stderr, both lines: stdout stays empty for a script reading --json.
      log.error(`no conversation here: no config.json ${where}\n${noConversationHint(process.cwd(), stateDir())}`);
      return 2;
    }
    const loaded = (await import('../inputs.js')).configOrBroken(inv);
    if (!loaded.ok) {
      process.stderr.write(
        brokenStatus(loaded.error.line, await whatRuns(loaded.file), skippedConfigFile(loaded.file)),
      );
      return 2;
    }
    const report = await collectStatus(loaded.config);
    process.stdout.write(inv.values.json ? `${JSON.stringify(report, null, 2)}\n` : formatStatus(report));
    return 0;
  },
};
