import { execa } from 'execa';
import { watcherName } from '../../app/sessions.js';
import { targetOf } from '../../terminal/pane.js';
import { Tmux } from '../../terminal/tmux.js';
import { configFrom, UsageError, type CommandSpec } from '../command.js';

export const attach: CommandSpec = {
  usage: 'attach AGENT',
  summary: "open an agent's tmux session (detach again with Ctrl-b d)",
  options: {},
  examples: ['baton attach claude1', 'baton attach watcher'],
  help: `
Attaches this terminal to the agent's session, or switches to it when run inside tmux.
"baton attach watcher" shows the daemon.`,
  async run(inv) {
    const config = configFrom(inv);
    const [name, ...extra] = inv.positionals;
    if (!name || extra.length) throw new UsageError('name one agent');
    const agent = config.agents[name];
    if (!agent && name !== 'watcher')
      throw new UsageError(`unknown agent "${name}" (agents: ${config.order.join(', ')})`);
    const t = new Tmux();
    // This conversation's daemon session (it is "watcher-<folder>-<hash>" when "watcher" was taken).
    const target = agent ? targetOf(agent) : `=${watcherName(config.messageDir, await t.sessions())}:`;
    const verb = process.env.TMUX ? 'switch-client' : 'attach-session';
    const r = await execa('tmux', [...t.prefix, verb, '-t', target], { stdio: 'inherit', reject: false });
    return r.exitCode === 0 ? 0 : 1;
  },
};
