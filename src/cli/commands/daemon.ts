import { openBus } from '../../bus/open.js';
import { Daemon } from '../../daemon/daemon.js';
import { log } from '../../lib/log.js';
import { configFrom, noPositionals, type CommandSpec } from '../command.js';

export const daemon: CommandSpec = {
  usage: 'daemon',
  summary: 'run the delivery daemon in the foreground',
  options: {},
  examples: ['baton daemon', 'baton daemon --config ~/work/review/config.json'],
  help: `
Watches every direction folder of the config, delivers messages in strict turns, and writes
state.json, archive/, rejected/ and events.jsonl under message_dir. Files already waiting when it
starts are taken. SIGINT or SIGTERM finish the delivery in progress, then stop it (exit 0).

Only one daemon may run per message folder: a second one exits 3 naming the holder's pid.
"baton up" starts this inside the tmux session "watcher".

Conversation control (config "turns"): max_turns, stop_phrase/stop_from and max_duration_s end the
conversation; timeout_s/max_nudges remind a silent turn holder; moderated holds each message in
pending/ for "baton approve". It also answers "baton end/resume/send/approve/reject".`,
  async run(inv) {
    noPositionals(inv);
    const config = configFrom(inv);
    const d = new Daemon(config, openBus(config));
    // Handlers go in before start(), so a signal during recovery still ends in a clean stop.
    let signals = 0;
    let started = false;
    let early: NodeJS.Signals | null = null;
    const onSignal = (sig: NodeJS.Signals) => {
      if (++signals > 1) {
        log.warn(`second ${sig}: exiting now`);
        process.exit(1);
      }
      if (started) void d.stop(sig);
      else early = sig;
    };
    for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(sig, onSignal);
    await d.start();
    started = true;
    if (early) void d.stop(early);
    const reason = await d.done;
    return reason === 'lock_compromised' ? 1 : 0;
  },
};
