import { UsageError, type CommandSpec } from '../command.js';

/** tmux's own words, on one line (it says "can't find session: =x", "open terminal failed: …"). */
const firstLine = (text: string): string => text.trim().split('\n')[0] ?? '';

export const attach: CommandSpec = {
  usage: 'attach AGENT | attach daemon',
  summary: "open an agent's tmux session, or the daemon's (detach again with Ctrl-b d)",
  reads: true,
  options: {},
  examples: ['baton attach claude1', 'baton attach daemon'],
  help: `
Attaches this terminal to the agent's session, or switches to it when run inside tmux.
"baton attach daemon" shows the daemon that serves this conversation: the machine's daemon in its
session "baton-daemon" (or "baton-daemon-<hash>"), or with BATON_DAEMON=conversation the conversation's
own in "watcher" ("watcher" is taken as a name for it too; an agent called daemon or watcher comes
first). A machine's daemon that runs as a service is in no tmux session: baton says so and where its
log is (exit 1). An agent that runs on another machine (its "host", PostgreSQL bus) is attached to
there: baton names that machine (exit 2).`,
  async run(inv) {
    const { execa } = await import('execa');
    const { isLocal } = await import('../../config/config.js');
    const { log } = await import('../../lib/log.js');
    const { targetOf } = await import('../../terminal/pane.js');
    const { Tmux } = await import('../../terminal/tmux.js');
    const config = (await import('../inputs.js')).configFrom(inv);
    const [name, ...extra] = inv.positionals;
    if (!name || extra.length) throw new UsageError('name one agent, or "daemon"');
    const agent = config.agents[name];
    const { DAEMON_NAMES } = await import('../../app/up/daemon-session.js');
    if (!agent && !(DAEMON_NAMES as readonly string[]).includes(name))
      throw new UsageError(`unknown agent "${name}" (agents: ${config.order.join(', ')}; the daemon: daemon)`);
    if (agent && !isLocal(config, name)) {
      log.error(
        `${name} runs on machine "${agent.host}" and this machine is "${config.host}": ` +
          `attach to it there (on ${agent.host}: baton attach ${name})`,
      );
      return 2;
    }
    let t = new Tmux();
    let session: string;
    let what: string;
    if (agent) {
      session = agent.target ?? agent.session;
      what = `${name}'s ${agent.target ? 'pane' : 'session'} "${session}"`;
    } else {
      const found = await findDaemon(config);
      if (!found.ok) {
        log.error(found.why);
        return 1;
      }
      ({ t, session } = found);
      what = `the daemon's session "${session}"`;
    }
    const target = agent ? targetOf(agent) : `=${session}:`;
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
    const opts = { stdio: ['inherit', 'inherit', 'pipe'], reject: false } as const;
    const r = await execa('tmux', [...t.prefix, verb, '-t', target], opts);
    if (r.exitCode === 0) return 0;
    log.error(`cannot attach to ${what}: ${firstLine(String(r.stderr)) || `tmux exited with ${r.exitCode}`}`);
    return 1;
  },
};

type Found = { ok: true; t: import('../../terminal/tmux.js').Tmux; session: string } | { ok: false; why: string };

/**
 * The daemon's session (app/up/daemon-session.ts) on the server the conversation runs on, else on this shell's
 * (the machine's daemon lives on the server of the `up` that started it).
 */
async function findDaemon(config: import('../../config/config.js').Config): Promise<Found> {
  const { daemonSession } = await import('../../app/up/daemon-session.js');
  const { machineDaemon } = await import('../../app/machine/daemon-lock.js');
  const { entryOf, isRegistered, keyOf, stateDir } = await import('../../app/machine/registry.js');
  const { conversationTmux } = await import('../../app/tmux-server.js');
  const { Tmux } = await import('../../terminal/tmux.js');
  const dir = stateDir();
  let served = false;
  try {
    served = isRegistered(dir, keyOf(entryOf(config, null)));
  } catch {
    /* a registry that does not read: its daemon serves on what it served, maybe this one */
    served = true;
  }
  const machinePid = served ? (machineDaemon(dir)?.pid ?? null) : null;
  let found: ReturnType<typeof daemonSession> = { kind: 'none' };
  for (const t of [conversationTmux(config), new Tmux()]) {
    found = daemonSession({ messageDir: config.messageDir, machineDir: dir, machinePid }, await t.sessions());
    if (found.kind === 'session') return { ok: true, t, session: found.name };
  }
  return {
    ok: false,
    why:
      found.kind === 'elsewhere'
        ? `the machine's daemon (pid ${found.pid}) serves this conversation but runs in no tmux session of this ` +
          'server: started as a service (its log: journalctl --user -u baton) or from another tmux server'
        : 'no daemon runs for this conversation on this machine; start the conversation with: baton up',
  };
}
