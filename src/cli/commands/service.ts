import { chmod, mkdir, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { CLI_JS } from '../../app/paths.js';
import type { Launch } from '../../app/machine/service-unit.js';
import { UsageError, type CommandSpec } from '../command.js';

const launch = (servicePath: (path: string) => string, agents: boolean): Launch => ({
  node: process.execPath,
  cli: CLI_JS,
  path: servicePath(process.env.PATH ?? ''),
  stateHome: process.env.XDG_STATE_HOME?.startsWith('/') ? process.env.XDG_STATE_HOME : undefined,
  agents,
});

export const service: CommandSpec = {
  usage: 'service install [--user] [--agents] | service uninstall',
  summary: "run the machine's daemon as a service that survives reboots",
  options: { user: { type: 'boolean' }, agents: { type: 'boolean' } },
  examples: ['baton service install --user', 'baton service install --agents', 'baton service uninstall'],
  help: `
install: writes a systemd user unit, $XDG_CONFIG_HOME/systemd/user/baton.service (default
~/.config/…), running "baton daemon --machine --stay" (restarted on failure), and prints how to enable
it. The database's URL (BATON_BUS_URL) and PostgreSQL variables go in $XDG_CONFIG_HOME/baton/env
(created empty, mode 0600; the unit requires it), never in the unit. After a reboot the service serves
every conversation still registered (baton ls): messages wait until "baton up" in each project starts
its agents again ("baton ls" says which wait, and why).
--agents: the service also brings the agents back — every conversation that was running (not
finished, not a demo) gets its agents started as "baton up" there would, each Claude Code, Codex and
Gemini CLI client resuming its session, and the agent holding the turn is told what it owes. The
unit's PATH (this shell's) must find the agents' commands.
On macOS it prints the launchd agent (a plist for ~/Library/LaunchAgents/) instead of writing a unit.
Only user services: --user is the default.

The unit runs with the PATH of the shell that ran install, each folder once (relative ones dropped):
the daemon runs tmux, which a user manager's own PATH may not find. Moved tmux? Run install again.

uninstall: disables the service first when it is enabled (systemctl --user disable --now
baton.service: stopped, and no longer started at login), then removes the unit (the environment file
is kept) and reloads systemd. When systemd cannot be asked (no user manager), it says so, names the
command, and keeps the unit (exit 1): removed first, the enabled link would point at nothing.`,
  async run(inv) {
    const [what, ...extra] = inv.positionals;
    if (extra.length || (what !== 'install' && what !== 'uninstall'))
      throw new UsageError('say "install" or "uninstall"');
    const { ENV_TEMPLATE, launchdPlist, servicePath, servicePaths, systemdUnit } = await import(
      '../../app/machine/service-unit.js'
    );
    const { log } = await import('../../lib/log.js');
    const paths = servicePaths();
    if (process.platform === 'darwin') {
      if (what === 'install') process.stdout.write(launchdPlist(launch(servicePath, Boolean(inv.values.agents))));
      log.info(
        what === 'install'
          ? 'save it as ~/Library/LaunchAgents/dev.baton.daemon.plist, then: launchctl load -w <that file>'
          : 'launchctl unload -w ~/Library/LaunchAgents/dev.baton.daemon.plist, then remove the file',
      );
      return 0;
    }
    if (what === 'uninstall') return uninstall(paths.unit);
    await mkdir(dirname(paths.unit), { recursive: true });
    await writeFile(paths.unit, systemdUnit(launch(servicePath, Boolean(inv.values.agents)), paths));
    if (!existsSync(paths.envFile)) {
      await mkdir(dirname(paths.envFile), { recursive: true, mode: 0o700 });
      await writeFile(paths.envFile, ENV_TEMPLATE, { mode: 0o600 });
    }
    await chmod(paths.envFile, 0o600).catch(() => {});
    log.success(`wrote ${paths.unit}`);
    process.stdout.write(
      [
        `database settings, if any (BATON_BUS_URL=…): ${paths.envFile}`,
        'enable it (starts now and at every login):  systemctl --user daemon-reload && systemctl --user enable --now baton.service',
        'keep it running without a login session:    loginctl enable-linger "$USER"',
        '',
      ].join('\n'),
    );
    return 0;
  },
};

/**
 * Disable first, then remove: uninstall once removed the unit and then said to disable it — too late, since
 * `systemctl --user disable` needs the unit file to know what to unlink, and the enabled link was left behind.
 */
async function uninstall(unit: string): Promise<number> {
  const { execa } = await import('execa');
  const { enabledLinks } = await import('../../app/machine/service-unit.js');
  const { log } = await import('../../lib/log.js');
  const disable = ['--user', 'disable', '--now', 'baton.service'];
  // systemctl only when the unit is enabled: a unit never enabled is removed without asking the user manager.
  const enabled = existsSync(unit) && enabledLinks(dirname(unit)).length > 0;
  if (enabled) {
    const r = await execa('systemctl', disable, { reject: false });
    if (r.exitCode !== 0) {
      const [why] = String(r.stderr || r.stdout || r.message)
        .trim()
        .split('\n');
      log.error(
        `baton.service is enabled, and systemd could not disable it (${why}): the unit is kept. ` +
          `Run: systemctl ${disable.join(' ')}   then: baton service uninstall`,
      );
      return 1;
    }
    log.info(`disabled and stopped it: systemctl ${disable.join(' ')}`);
  }
  const had = existsSync(unit);
  await rm(unit, { force: true });
  log.info(had ? `removed ${unit}` : `no unit at ${unit}`);
  const reload = enabled ? await execa('systemctl', ['--user', 'daemon-reload'], { reject: false }) : null;
  if (had)
    log.info(
      reload?.exitCode === 0
        ? 'systemd reloaded (systemctl --user daemon-reload)'
        : 'if systemd had loaded it: systemctl --user daemon-reload',
    );
  return 0;
}
