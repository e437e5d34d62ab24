import { setTimeout as sleep } from 'node:timers/promises';
import type { Config } from '../config.js';
import { layout } from '../layout.js';
import { daemonStatus, readHolder } from '../lock.js';
import { log } from '../log.js';
import type { Tmux } from '../tmux.js';
import { configFrom, noPositionals, tmux, WATCHER_SESSION, type CommandSpec } from './common.js';

/** Stop the daemon (SIGTERM, so it finishes a delivery and releases its lock), then the sessions. */
export async function stopAll(config: Config, t: Tmux, opts: { quiet: boolean }): Promise<string[]> {
  const l = layout(config);
  const stopped: string[] = [];
  const d = await daemonStatus(l);
  const holder = readHolder(l);
  if (d.running && holder) {
    try {
      process.kill(holder.pid, 'SIGTERM');
      for (let i = 0; i < 100 && (await daemonStatus(l)).running; i++) await sleep(100);
      stopped.push(`daemon (pid ${holder.pid})`);
    } catch (err) {
      log.warn(`cannot signal the daemon (pid ${holder.pid}): ${(err as Error).message}`);
    }
  }
  const sessions = [...config.order.filter((n) => !config.agents[n]!.target).map((n) => config.agents[n]!.session), WATCHER_SESSION];
  for (const s of sessions) if (await t.killSession(s)) stopped.push(`session ${s}`);
  if (!opts.quiet) log.info(stopped.length ? `stopped ${stopped.join(', ')}` : 'nothing was running');
  return stopped;
}

export const down: CommandSpec = {
  usage: 'down',
  summary: "stop this config's daemon and tmux sessions",
  options: {},
  help: `
Sends the daemon SIGTERM (it finishes the delivery in progress and releases its lock), then kills
the agents' sessions and the "watcher" session. Panes given as "target" in config.json are left
alone. Messages, state and archive stay where they are: "baton up" continues the conversation.`,
  async run(inv) {
    noPositionals(inv);
    await stopAll(configFrom(inv), tmux(), { quiet: false });
    return 0;
  },
};
