import { UsageError, type CommandSpec } from '../command.js';

/** tmux's own words, on one line (it says "can't find session: =x", "open terminal failed: …"). */
const firstLine = (text: string): string => text.trim().split('\n')[0] ?? '';

export const attach: CommandSpec = {
  usage: 'attach AGENT',
  summary: "open an agent's tmux session (detach again with Ctrl-b d)",
  reads: true,
  options: {},
  examples: ['baton attach claude1', 'baton attach watcher'],
  help: `
Attaches this terminal to the agent's session, or switches to it when run inside tmux.
"baton attach watcher" shows the daemon. An agent that runs on another machine (its "host",
PostgreSQL bus) is attached to there: baton names that machine (exit 2).`,
  async run(inv) {
    const { execa } = await import('execa');
    const { watcherName } = await import('../../app/sessions.js');
    const { isLocal } = await import('../../config/config.js');
    const { log } = await import('../../lib/log.js');
    const { targetOf } = await import('../../terminal/pane.js');
    const { Tmux } = await import('../../terminal/tmux.js');
    const { configFrom } = await import('../inputs.js');
    const config = configFrom(inv);
    const [name, ...extra] = inv.positionals;
    if (!name || extra.length) throw new UsageError('name one agent');
    const agent = config.agents[name];
    if (!agent && name !== 'watcher')
      throw new UsageError(`unknown agent "${name}" (agents: ${config.order.join(', ')})`);
    if (agent && !isLocal(config, name)) {
      log.error(
        `${name} runs on machine "${agent.host}" and this machine is "${config.host}": ` +
          `attach to it there (on ${agent.host}: baton attach ${name})`,
      );
      return 2;
    }
    const t = new Tmux();
    // This conversation's daemon session (it is "watcher-<folder>-<hash>" when "watcher" was taken).
    const session = agent ? (agent.target ?? agent.session) : watcherName(config.messageDir, await t.sessions());
    const target = agent ? targetOf(agent) : `=${session}:`;
    const what = agent
      ? `${name}'s ${agent.target ? 'pane' : 'session'} "${session}"`
      : `the daemon's session "${session}"`;
    // Never tmux's raw error: say in one line what is missing and what starts it.
    // (display-message would fall back to another session in silence; these two fail for a missing one.)
    const there = await t.run(agent?.target ? ['list-panes', '-t', target] : ['has-session', '-t', `=${session}`]);
    if (!there.ok) {
      log.error(
        agent?.target
          ? `no tmux pane ${agent.target} for ${name} on this machine (${firstLine(there.stderr)})`
          : `no tmux session "${session}" for ${agent ? name : 'the daemon'} on this machine ` +
              `(${firstLine(there.stderr) || 'tmux found none'}); start the conversation with: baton up`,
      );
      return 1;
    }
    const verb = process.env.TMUX ? 'switch-client' : 'attach-session';
    const r = await execa('tmux', [...t.prefix, verb, '-t', target], {
      stdin: 'inherit',
      stdout: 'inherit',
      stderr: 'pipe',
      reject: false,
    });
    if (r.exitCode === 0) return 0;
    log.error(`cannot attach to ${what}: ${firstLine(String(r.stderr)) || `tmux exited with ${r.exitCode}`}`);
    return 1;
  },
};
