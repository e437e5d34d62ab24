import { stopAll } from '../../app/sessions.js';
import { conversationTmux } from '../../app/tmux-server.js';
import { openBus } from '../../bus/open.js';
import { configFrom, noPositionals, type CommandSpec } from '../command.js';

export const down: CommandSpec = {
  usage: 'down',
  summary: "stop this config's daemon and tmux sessions",
  options: {},
  examples: ['baton down'],
  help:
    `
Sends the daemon SIGTERM (it finishes the delivery in progress and releases its lock), then kills
the sessions "baton up" started for this conversation (agents and watcher). Sessions it did not
start, other conversations' sessions and panes given as "target" in config.json are left alone. ` +
    'Messages, state and archive stay where they are: "baton up" continues the conversation.',
  async run(inv) {
    noPositionals(inv);
    const config = configFrom(inv);
    await stopAll(config, openBus(config), conversationTmux(config), { quiet: false });
    return 0;
  },
};
