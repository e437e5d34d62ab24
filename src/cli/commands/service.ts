import { chmod, mkdir, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { CLI_JS } from '../../app/paths.js';
import type { Launch } from '../../app/machine/service-unit.js';
import { UsageError, type CommandSpec } from '../command.js';

const launch = (): Launch => ({
  node: process.execPath,
  cli: CLI_JS,
  path: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
  stateHome: process.env.XDG_STATE_HOME?.startsWith('/') ? process.env.XDG_STATE_HOME : undefined,
});

export const service: CommandSpec = {
  usage: 'service install [--user] | service uninstall',
  summary: "run the machine's daemon as a service that survives reboots",
  options: { user: { type: 'boolean' } },
  examples: ['baton service install --user', 'baton service uninstall'],
  help: `
install: writes a systemd user unit, $XDG_CONFIG_HOME/systemd/user/baton.service (default
~/.config/…), running "baton daemon --machine --stay" (restarted on failure), and prints how to enable
it. The database's URL (BATON_BUS_URL) and PostgreSQL variables go in $XDG_CONFIG_HOME/baton/env
(created empty, mode 0600; the unit requires it), never in the unit. After a reboot the service serves
every conversation still registered (baton ls): messages wait until "baton up" in each project starts
its agents again.
On macOS it prints the launchd agent (a plist for ~/Library/LaunchAgents/) instead of writing a unit.
Only user services: --user is the default.

uninstall: removes the unit (the environment file is kept) and prints how to stop it.`,
  async run(inv) {
    const [what, ...extra] = inv.positionals;
    if (extra.length || (what !== 'install' && what !== 'uninstall'))
      throw new UsageError('say "install" or "uninstall"');
    const { ENV_TEMPLATE, launchdPlist, servicePaths, systemdUnit } = await import('../../app/machine/service-unit.js');
    const { log } = await import('../../lib/log.js');
    const paths = servicePaths();
    if (process.platform === 'darwin') {
      if (what === 'install') process.stdout.write(launchdPlist(launch()));
      log.info(
        what === 'install'
          ? 'save it as ~/Library/LaunchAgents/dev.baton.daemon.plist, then: launchctl load -w <that file>'
          : 'launchctl unload -w ~/Library/LaunchAgents/dev.baton.daemon.plist, then remove the file',
      );
      return 0;
    }
    if (what === 'uninstall') {
      const had = existsSync(paths.unit);
      await rm(paths.unit, { force: true });
      log.info(had ? `removed ${paths.unit}` : `no unit at ${paths.unit}`);
      log.info('stop it with: systemctl --user disable --now baton.service; systemctl --user daemon-reload');
      return 0;
    }
    await mkdir(dirname(paths.unit), { recursive: true });
    await writeFile(paths.unit, systemdUnit(launch(), paths));
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
