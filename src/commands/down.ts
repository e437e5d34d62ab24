import { setTimeout as sleep } from 'node:timers/promises';
import type { Config } from '../config.js';
import { layout } from '../layout.js';
import { daemonStatus, readHolder } from '../lock.js';
import { log } from '../log.js';
import type { Tmux } from '../tmux.js';
import { hostname } from 'node:os';
import { configFrom, noPositionals, tmux, type CommandSpec } from './common.js';

/** Stop the daemon (SIGTERM, so it finishes a delivery and releases its lock), then the sessions. */
export async function stopAll(config: Config, t: Tmux, opts: { quiet: boolean }): Promise<string[]> {
  const l = layout(config);
  const stopped: string[] = [];
  const d = await daemonStatus(l);
  const holder = readHolder(l);
  // A daemon on another host (a shared folder) cannot be signalled from here.
  if (d.running && holder && holder.host !== hostname()) {
    log.warn(`the daemon runs on ${holder.host} (pid ${holder.pid}); stop it there`);
  } else if (d.running && holder) {
    try {
      process.kill(holder.pid, 'SIGTERM');
      for (let i = 0; i < 100 && (await daemonStatus(l)).running; i++) await sleep(100);
      stopped.push(`daemon (pid ${holder.pid})`);
    } catch (err) {
      log.warn(`cannot signal the daemon (pid ${holder.pid}): ${(err as Error).message}`);
    }
  }
  // Only sessions this conversation started (tagged with its message_dir): never a person's own session
  // that happens to be called claude1, nor another conversation's.
  for (const [name, { owner }] of await t.sessions()) {
    if (owner === l.root && (await t.killSession(name))) stopped.push(`session ${name}`);
  }
  if (!opts.quiet) log.info(stopped.length ? `stopped ${stopped.join(', ')}` : 'nothing was running');
  return stopped;
}

export const down: CommandSpec = {
  usage: 'down',
  summary: "stop this config's daemon and tmux sessions",
  options: {},
  examples: ['baton down'],
  help: `
Sends the daemon SIGTERM (it finishes the delivery in progress and releases its lock), then kills
the sessions "baton up" started for this conversation (agents and watcher). Sessions it did not
start, other conversations' sessions and panes given as "target" in config.json are left alone. Messages, state and archive stay where they are: "baton up" continues the conversation.`,
  async run(inv) {
    noPositionals(inv);
    await stopAll(configFrom(inv), tmux(), { quiet: false });
    return 0;
  },
};
