/**
 * `baton service`: the machine's daemon as a service that survives reboots and crashes — a systemd user
 * unit (Linux) or a launchd agent (macOS) running `baton daemon --machine --stay`, which serves the
 * registry (registry.ts) and stays when it serves nothing. The database's URL comes from an environment
 * file the person fills in (mode 0600), never from the unit: a unit file is world-readable and shown by
 * `systemctl cat`.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';

export interface ServicePaths {
  /** The unit: $XDG_CONFIG_HOME/systemd/user/baton.service. */
  unit: string;
  /** The environment file: $XDG_CONFIG_HOME/baton/env. */
  envFile: string;
}

export function servicePaths(env: NodeJS.ProcessEnv = process.env): ServicePaths {
  const config = env.XDG_CONFIG_HOME?.startsWith('/') ? env.XDG_CONFIG_HOME : join(homedir(), '.config');
  return { unit: join(config, 'systemd', 'user', 'baton.service'), envFile: join(config, 'baton', 'env') };
}

/** systemd's quoting for one word of ExecStart/Environment. */
const quote = (s: string): string => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/%/g, '%%')}"`;

export interface Launch {
  node: string;
  cli: string;
  /** PATH for the daemon (tmux must be on it); the state folder when not the default. */
  path: string;
  stateHome: string | undefined;
}

export function systemdUnit(l: Launch, paths: ServicePaths): string {
  return `[Unit]
Description=baton: the machine's daemon (AI coding agents in tmux panes, taking turns)
Documentation=man:tmux(1)

[Service]
Type=simple
ExecStart=${quote(l.node)} ${quote(l.cli)} daemon --machine --stay
Restart=on-failure
RestartSec=2
# BATON_BUS_URL and the PostgreSQL variables (PGPASSFILE, …), if any: never written into this unit.
EnvironmentFile=-${paths.envFile}
Environment=${quote(`PATH=${l.path}`)}
${l.stateHome ? `Environment=${quote(`XDG_STATE_HOME=${l.stateHome}`)}\n` : ''}
[Install]
WantedBy=default.target
`;
}

export const ENV_TEMPLATE = `# baton service environment (read by systemd: KEY=value lines). Keep this file private (chmod 600).
# BATON_BUS_URL=postgres://user@host/db   (the password goes in ~/.pgpass, or PGPASSWORD= here)
`;

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The launchd agent for macOS (~/Library/LaunchAgents/dev.baton.daemon.plist). */
export function launchdPlist(l: Launch): string {
  const args = [l.node, l.cli, 'daemon', '--machine', '--stay'].map((a) => `    <string>${xml(a)}</string>`);
  const env = [['PATH', l.path], ...(l.stateHome ? [['XDG_STATE_HOME', l.stateHome]] : [])].map(
    ([k, v]) => `    <key>${k}</key><string>${xml(v!)}</string>`,
  );
  return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
  <key>Label</key><string>dev.baton.daemon</string>
  <key>ProgramArguments</key>
  <array>
${args.join('\n')}
  </array>
  <key>EnvironmentVariables</key>
  <dict>
${env.join('\n')}
  </dict>
  <key>RunAtLoad</key><true/>
  <key>KeepAlive</key><dict><key>SuccessfulExit</key><false/></dict>
</dict>
</plist>
`;
}
