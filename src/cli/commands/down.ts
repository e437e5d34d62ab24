import { noPositionals, type CommandSpec } from '../command.js';

export const down: CommandSpec = {
  usage: 'down',
  summary: "stop this config's daemon and tmux sessions",
  options: {},
  examples: ['baton down'],
  help:
    `
Takes the conversation from the machine's daemon, which lets go of it (releases its lease) and serves
the others on — or exits when it has nothing else to serve; a daemon of the conversation's own
(BATON_DAEMON=conversation, in "watcher") gets SIGTERM (it finishes the delivery in progress). Then it
kills the sessions "baton up" started for this conversation. Sessions it did not start, other
conversations' sessions and panes given as "target" in config.json are left alone. ` +
    'Messages, state and archive stay where they are: "baton up" continues the conversation.\n\n' +
    'With a config.json that does not load (a typo), it still stops what runs: the daemon that recorded ' +
    'itself beside that file (.baton/) and the sessions of its message folder; it names the error and exits 0, ' +
    'or 2 when nothing recorded what runs for that file.',
  async run(inv) {
    const { stopAll } = await import('../../app/up/sessions.js');
    const { conversationTmux } = await import('../../app/tmux-server.js');
    const { stopWhatRuns } = await import('../../app/status/what-runs.js');
    const { openBus } = await import('../../bus/open.js');
    const { log } = await import('../../lib/log.js');
    noPositionals(inv);
    const loaded = (await import('../inputs.js')).configOrBroken(inv);
    if (loaded.ok) {
      await stopAll(loaded.config, openBus(loaded.config), conversationTmux(loaded.config), { quiet: false });
      return 0;
    }
    log.warn(loaded.error.line);
    const r = await stopWhatRuns(loaded.file);
    if (r.kind === 'unknown') {
      log.error(`no daemon recorded what runs for ${loaded.file} on this machine: fix the config, then "baton down"`);
      return 2;
    }
    for (const note of r.notes) log.warn(note);
    log.info(r.stopped.length ? `stopped ${r.stopped.join(', ')}` : 'nothing was running');
    return 0;
  },
};
