import { isBusUnavailable, openBus } from '../../bus/open.js';
import { Daemon } from '../../daemon/daemon.js';
import { log } from '../../lib/log.js';
import { FencedError, LeaseHeldError } from '../../bus/bus.js';
import { configFrom, noPositionals, whenOutputCloses, type CommandSpec } from '../command.js';

export const daemon: CommandSpec = {
  usage: 'daemon',
  summary: 'run the delivery daemon in the foreground',
  options: {},
  examples: ['baton daemon', 'baton daemon --config ~/work/review/config.json'],
  help: `
Watches every direction folder of the config, delivers messages in strict turns, and writes
state.json, archive/, rejected/ and events.jsonl under message_dir. Files already waiting when it
starts are taken. SIGINT or SIGTERM finish the delivery in progress, then stop it (exit 0).

Only one daemon may run per message folder: a second one exits 3 naming the holder's pid. A daemon
that loses its lease (paused past it, say with Ctrl-Z) types and writes nothing more, then takes the
lease again when it can, or exits 3 when another daemon holds it.
"baton up" starts this inside the tmux session "watcher".

On the PostgreSQL bus (config "bus", SPEC §10) there is one daemon per machine (BATON_HOST, else the
hostname): it moves its own agents' files into the database, types only into its own agents, and
while the database cannot be reached it types nothing and tries again every 2 s.

Conversation control (config "turns"): max_turns, stop_phrase/stop_from and max_duration_s end the
conversation; timeout_s/max_nudges remind a silent turn holder; moderated holds each message in
pending/ for "baton approve". It also answers "baton end/resume/send/approve/reject".`,
  async run(inv) {
    noPositionals(inv);
    const config = configFrom(inv);
    const bus = openBus(config);
    // Handlers go in before start(), so a signal during recovery still ends in a clean stop.
    let signals = 0;
    let current: Daemon | null = null;
    let stopping: NodeJS.Signals | null = null;
    const onSignal = (sig: NodeJS.Signals) => {
      if (++signals > 1) {
        log.warn(`second ${sig}: exiting now`);
        process.exit(1);
      }
      stopping = sig;
      if (current) void current.stop(sig);
    };
    for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(sig, onSignal);
    whenOutputCloses(() => onSignal('SIGTERM')); // stdout gone (a closed pipe): stop cleanly, not mid-step
    let unreachable = 0;
    for (let attempt = 0; ; attempt++) {
      const d = new Daemon(config, bus);
      try {
        await d.start();
      } catch (err) {
        // Fenced and another daemon holds it now: that one delivers (issue 13: re-acquire or exit).
        if (attempt > 0 && err instanceof LeaseHeldError) {
          log.warn(`${err.message}: it delivers from now on; this daemon exits`);
          return 3;
        }
        // The database is away (SPEC §10), or the lease was lost while starting (the connection dropped
        // mid-recovery): type nothing until it is back, then take the lease again, recover and go on.
        if ((isBusUnavailable(err) || err instanceof FencedError) && !stopping) {
          if (unreachable++ % 15 === 0) log.warn(`the bus cannot be reached (${(err as Error).message}); trying again every 2 s`);
          await new Promise((r) => setTimeout(r, 2000));
          continue;
        }
        throw err;
      }
      current = d;
      if (unreachable) log.info('the bus is back');
      unreachable = 0;
      if (stopping) void d.stop(stopping);
      const reason = await d.done;
      if (reason !== 'fenced' || stopping) return 0;
      // The lease was lost (this process was paused past it, or a one-shot command answered meanwhile):
      // take it again when it can be had — recovery then finds whatever the other holder did.
      log.warn('the lease was lost; taking it again');
      current = null;
    }
  },
};
