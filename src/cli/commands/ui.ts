import { spawn } from 'node:child_process';
import type { Config } from '../../config/config.js';
import type { Logger } from '../../lib/log.js';
import { type CommandSpec, type Invocation, noPositionals, UsageError, untilStopped, type Values } from '../command.js';

export const DEFAULT_UI_PORT = 7420;

export const ui: CommandSpec = {
  usage: 'ui [--all] [--port N | -p N] [--host H] [--open] [--token T] [--allow-remote] [--json]',
  summary: 'a live web dashboard: the transcript, whose turn it is, the panes, controls; every conversation',
  options: {
    all: { type: 'boolean' },
    port: { type: 'string', short: 'p' },
    host: { type: 'string' },
    open: { type: 'boolean' },
    'allow-remote': { type: 'boolean' },
    token: { type: 'string' },
    json: { type: 'boolean' },
  },
  examples: [
    'baton ui',
    'baton ui --port 0 --open',
    'baton ui --all --open',
    'BATON_UI_TOKEN=$(openssl rand -hex 16) baton ui --allow-remote --host 0.0.0.0',
  ],
  help: `
Serves one page (no external requests) until Ctrl-C: the conversation as a chat with a lane per agent,
whose turn it is and for how long, held and rejected files, each agent's pane (alive, command, a live
read-only copy of its screen), and controls to send a message as user, end, resume, approve and
reject — the same requests as the CLI commands. Updates arrive as they happen (Server-Sent Events).
Works whether or not the daemon runs; with none, the controls answer themselves as the CLI does.

Every conversation of this machine's daemon (what "baton ls" lists) is one click away: /all is an
overview of them all — folder, bus, policy, whose turn and for how long, messages, running / paused /
finished / stalled / stopped / skipped, waiting files — updated live, each row leading to that
conversation's view at /c/<id>/ (the same page, with the same controls). Inside a project the page at
/ is the project's conversation, with a link to the overview; with --all, or outside any project (no
config.json found), the overview is at / itself.

  --all            show the overview at / even inside a project
  --port N, -p N   port to listen on (default ${DEFAULT_UI_PORT}; 0 picks a free one)
  --host H         address to listen on (default 127.0.0.1)
  --open           open the page in the system's browser (xdg-open / open)
  --token T        require this access token (at least 16 characters) on every request — for a
                   shared machine; default $BATON_UI_TOKEN (better: arguments show in ps). The
                   printed address carries it once, then a cookie does
  --allow-remote   allow a host that is not loopback (plain HTTP); needs a token
  --json           print {"url": …, "port": …} on one line instead of a sentence (for scripts)`,
  async run(inv) {
    const { explainBusError } = await import('../../bus/open.js');
    const { log } = await import('../../lib/log.js');
    const { startUi } = await import('../../ui/server.js');
    noPositionals(inv);
    const v = inv.values as Values<'port' | 'host' | 'token', 'all' | 'open' | 'allow-remote' | 'json'>;
    const port = v.port === undefined ? DEFAULT_UI_PORT : Number(v.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535)
      throw new UsageError(`--port must be 0..65535, not "${v.port}"`);
    const host = v.host ?? '127.0.0.1';
    const token = v.token ?? (process.env.BATON_UI_TOKEN || undefined);
    if (v.all && inv.values.config !== undefined)
      throw new UsageError('--all shows every conversation: it takes no --config');
    const config = v.all ? null : await projectConfig(inv);
    const onError = (err: unknown) =>
      log.warn(explainBusError(err) ?? (err instanceof Error ? err.message : String(err)));
    const opts = { host, port, allowRemote: Boolean(v['allow-remote']), accessToken: token, onError };
    let server: Awaited<ReturnType<typeof startUi>>;
    try {
      server = await startUi(config, opts);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'EADDRINUSE' && code !== 'EADDRNOTAVAIL' && code !== 'ENOTFOUND') throw err;
      log.error(
        code === 'EADDRINUSE'
          ? `port ${port} on ${host} is in use: choose another with --port N (0 picks a free one)`
          : `cannot listen on ${host}: no such address on this machine`,
      );
      return 1;
    }
    const address = token ? `${server.url}?token=${encodeURIComponent(token)}` : server.url;
    if (v.json) process.stdout.write(`${JSON.stringify({ url: address, port: server.port })}\n`);
    else {
      const what = config ? '' : 'every conversation of this machine; ';
      process.stdout.write(`baton ui: ${address}  (${what}Ctrl-C stops it)\n`);
    }
    if (v.open) openBrowser(address, log);
    // A notification's link leads here while it runs, without the token: this project's conversation at /
    // (config/dashboard-record.ts), every conversation of the machine's registry at /c/<id>/ (app/machine/dashboard.ts).
    const { writeDashboardRecord } = await import('../../config/dashboard-record.js');
    const { writeMachineDashboard } = await import('../../app/machine/dashboard.js');
    const { stateDir } = await import('../../app/machine/registry.js');
    const unrecord = config?.file ? writeDashboardRecord(config.file, config.host, server.url) : () => {};
    const unrecordMachine = writeMachineDashboard(stateDir(), server.url);
    await untilStopped();
    unrecord();
    unrecordMachine();
    await server.close();
    return 0;
  },
};

/** The project's config; none found (and none named): null, the overview of every conversation. */
async function projectConfig(inv: Invocation): Promise<Config | null> {
  const { locateConfig } = await import('../../config/load.js');
  if (locateConfig(inv.values.config as string | undefined).file === null) return null;
  return (await import('../inputs.js')).configFrom(inv);
}

function openBrowser(url: string, log: Logger): void {
  const cmd = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  const child = spawn(cmd, [url], { stdio: 'ignore', detached: true });
  child.on('error', () => log.warn(`could not start ${cmd}; open ${url} yourself`));
  child.unref();
}
