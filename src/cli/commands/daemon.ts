import type { Config } from '../../config/config.js';
import type { Logger } from '../../lib/log.js';
import { UsageError, whenOutputCloses, type CommandSpec, type Invocation } from '../command.js';

export const daemon: CommandSpec = {
  usage: 'daemon [CONFIG...] | daemon --machine [--stay] [--agents]',
  summary: 'run the delivery daemon in the foreground',
  options: { machine: { type: 'boolean' }, stay: { type: 'boolean' }, agents: { type: 'boolean' } },
  examples: [
    'baton daemon',
    'baton daemon --config ~/work/review/config.json',
    'baton daemon ~/work/review/config.json ~/work/docs/config.json',
    'baton daemon --machine --stay',
  ],
  help: `
Watches every direction folder of the config, delivers messages in strict turns, and writes
state.json, archive/, rejected/ and events.jsonl under message_dir. Files already waiting when it
starts are taken. SIGINT or SIGTERM finish the delivery in progress, then stop it (exit 0).

Only one daemon may run per message folder: a second one exits 3 naming the holder's pid. A daemon
that loses its lease (paused past it, say with Ctrl-Z) types and writes nothing more, then takes the
lease again when it can, or exits 3 when another daemon holds it.
"baton up" starts the machine's daemon (--machine, below) in the tmux session "baton-daemon", or with
BATON_DAEMON=conversation this one, for its conversation alone, in the session "watcher".

On the PostgreSQL bus (config "bus", docs/protocol.md §10) there is one daemon per machine (BATON_HOST, else the
hostname): it moves its own agents' files into the database, types only into its own agents, and
while the database cannot be reached it types nothing and tries again every 2 s.

Conversation control (config "turns"): max_turns, stop_phrase/stop_from and max_duration_s end the
conversation; timeout_s/max_nudges remind a silent turn holder; moderated holds each message in
pending/ for "baton approve". It also answers "baton end/resume/send/approve/reject".

Given several configs (--config and CONFIG...), one process serves all those conversations: each
keeps its own lease and turn; they share one tmux client and one set of database connections, which
is what lets one machine carry many conversations. One that cannot start (another daemon holds it)
is logged and the rest go on; the exit code is then the worst of them. "baton down" in one of
those conversations leaves such a process running for the others (it says so).

--machine: the machine's daemon, the one "baton up" starts (in the tmux session "baton-daemon"):
it serves every conversation listed in $XDG_STATE_HOME/baton/conversations.json (default
~/.local/state/baton/), takes on the ones "baton up" adds and lets go of the ones "baton down"
removes while it runs, and exits once it serves none and has none skipped to report (baton ls) —
unless --stay (what "baton service" runs). --agents: at its start it also starts again the agents of
every conversation it takes on that was running (not finished), each client resuming its session, as
"baton up" there would (what "baton service install --agents" runs: a reboot brings them back).
Only one runs per user and machine name (BATON_HOST, else the hostname: each other name has its
registry in $XDG_STATE_HOME/baton/hosts/<name>/): a second one exits 3.`,
  async run(inv) {
    if (inv.values.stay && !inv.values.machine) throw new UsageError('--stay goes with --machine');
    if (inv.values.agents && !inv.values.machine) throw new UsageError('--agents goes with --machine');
    if (inv.values.machine && (inv.positionals.length || inv.values.config))
      throw new UsageError('--machine serves the registry: give no config');
    const { log } = await import('../../lib/log.js');
    const { timeScale } = await import('../../lib/timing.js');
    // A scaled daemon gives up a stalled peer's lease sooner: say so, so that it is never a silent surprise.
    if (timeScale() !== 1)
      log.warn(`BATON_TIME_SCALE=${timeScale()}: every lease, lock and rescan time scaled (for tests)`);
    const { Service } = await import('../../daemon/serve.js'); // one process serving the conversations given
    const service = inv.values.machine ? await machineDaemon(inv, log) : new Service(await configsFrom(inv, log), log);
    // Handlers go in before start, so a signal during recovery still ends in a clean stop.
    let signals = 0;
    const onSignal = (sig: NodeJS.Signals) => {
      if (++signals > 1) {
        log.warn(`second ${sig}: exiting now`);
        process.exit(1);
      }
      service.stop(sig);
    };
    for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(sig, onSignal);
    whenOutputCloses(() => onSignal('SIGTERM')); // stdout gone (a closed pipe): stop cleanly, not mid-step
    return service.run();
  },
};

async function machineDaemon(inv: Invocation, log: Logger) {
  const { MachineDaemon } = await import('../../app/machine/serve-machine.js');
  const { stateDir } = await import('../../app/machine/registry.js');
  return new MachineDaemon(stateDir(), log, { stay: Boolean(inv.values.stay), agents: Boolean(inv.values.agents) });
}

/**
 * `--config` and every CONFIG given, each conversation once: two configs naming the same conversation
 * (the same file, or the same message folder or database conversation) would fight over one lease — in
 * one process the files bus's lock would even let both in.
 */
async function configsFrom(inv: Invocation, log: Logger): Promise<Config[]> {
  const { loadConfig, locateConfig } = await import('../../config/load.js');
  const files = [...(inv.values.config ? [inv.values.config as string] : []), ...inv.positionals];
  if (files.length <= 1) return [loadConfig(locateConfig(files[0]))];
  const seen = new Map<string, string>();
  return files
    .map((f) => loadConfig(locateConfig(f)))
    .filter((c) => {
      // A conversation of the PostgreSQL bus is its database, schema and name: another schema is another bus.
      const pg = c.bus.kind === 'postgres' ? c.bus : null;
      const key = pg ? `postgres ${pg.url} ${pg.schema} ${pg.conversation}` : `files ${c.messageDir}`;
      const first = seen.get(key);
      if (first) log.warn(`${c.file} is the conversation of ${first} again: served once`);
      else seen.set(key, c.file ?? 'the default config');
      return !first;
    });
}
