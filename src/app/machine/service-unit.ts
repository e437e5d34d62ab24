/**
 * `baton service`: the machine's daemon as a service that survives reboots and crashes — a systemd user
 * unit (Linux) or a launchd agent (macOS) running `baton daemon --machine --stay`, which serves the
 * registry (registry.ts) and stays when it serves nothing; with `--agents` (`service install --agents`) it
 * also starts again, at its start, the agents of the conversations that were running (bring-back.ts). The database's URL comes from an environment
 * file the person fills in (mode 0600), never from the unit: a unit file is world-readable and shown by
 * `systemctl cat`.
 */
import { lstatSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { UsageError } from '../input.js';

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

// systemd reads every value of a unit through its own rules (systemd.syntax, systemd.service, systemd.exec),
// and a path is the person's: an XDG_CONFIG_HOME holding "%" once made systemd drop the EnvironmentFile= line
// ("Invalid slot", a warning `systemd-analyze verify` passes), and "%h" would have named another file.
// `%` starts a specifier in every value, so it is written `%%` everywhere.
const specifiers = (s: string): string => s.replace(/%/g, '%%');

/** Inside double quotes systemd undoes C escapes: `\\`, `\"`, and `\xNN` for a control character. */
const cQuoted = (s: string): string =>
  s
    .replace(/\\/g, '\\\\')
    .replace(/"/g, '\\"')
    .replace(/[\u0000-\u001F\u007F]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);

/**
 * The program of a command line (ExecStart=): quoted, specifiers doubled, and otherwise taken as written —
 * `$` included (measured on systemd 252: `$$` there stays two dollars and names no file). systemd refuses
 * quotes, backslashes and control characters in it ("Executable name contains special characters").
 */
function executable(path: string): string {
  if (!path.startsWith('/') || /["'\\\u0000-\u001F\u007F]/.test(path))
    throw new UsageError(
      `systemd cannot run a program at this path (quote, backslash or control character): ${JSON.stringify(path)}`,
    );
  return `"${specifiers(path)}"`;
}

/** An argument of a command line: quoted, specifiers and `$` (a variable there) doubled. */
const argument = (s: string): string => `"${specifiers(cQuoted(s)).replace(/\$/g, '$$$$')}"`;

/** One `NAME=value` of Environment=: quoted, specifiers doubled; `$` means nothing there. */
const assignment = (name: string, value: string): string => `"${specifiers(cQuoted(`${name}=${value}`))}"`;

/**
 * A path setting (EnvironmentFile=; WorkingDirectory= too) is the rest of its line, as written: no quotes
 * (they would be part of the name), only specifiers expanded. A path systemd cannot be given so — a line
 * break or other control character in it, or one not absolute — is refused rather than written wrong.
 */
function pathValue(path: string): string {
  if (!path.startsWith('/') || /[\u0000-\u001F\u007F]/.test(path) || path !== path.trim())
    throw new UsageError(
      `systemd cannot be given this path in a unit (not absolute, or a control character): ${JSON.stringify(path)}`,
    );
  return specifiers(path);
}

/**
 * The PATH the service runs with: the installing shell's, frozen (the daemon runs tmux, and a notify command
 * sink runs the person's programs: a user manager's own PATH, /usr/bin:/bin, lacks a tmux from Homebrew or
 * Nix), with each folder once — a shell's PATH gathers repeats (every nested shell, every `source ~/.bashrc`,
 * added its folders again, and the unit carried them all) — and without empty or relative entries, which
 * would name the service's working folder. Re-run install after moving tmux (docs/reference.md).
 */
export function servicePath(path: string): string {
  const seen = new Set<string>();
  for (const dir of path.split(':')) if (dir.startsWith('/')) seen.add(dir.replace(/(.)\/+$/, '$1'));
  return [...seen].join(':') || '/usr/local/bin:/usr/bin:/bin';
}

export interface Launch {
  node: string;
  cli: string;
  /** PATH for the daemon (tmux must be on it); the state folder when not the default. */
  path: string;
  stateHome: string | undefined;
  /** `--agents`: after a reboot the service starts the running conversations' agents too (bring-back.ts). */
  agents?: boolean;
}

/** What the service runs after the program: the machine's daemon, staying, and bringing agents back or not. */
const daemonArgs = (l: Launch): string[] => ['daemon', '--machine', '--stay', ...(l.agents ? ['--agents'] : [])];

/**
 * The unit (no Documentation=: it once named man:tmux(1), which is not baton's; baton has no manual page, and
 * `baton service --help` is what says what this unit is). Its environment file is required (no `-` before it): `install` always writes one (empty but
 * for comments until the person adds the database's settings), so a missing one means something went
 * wrong, and a service started without them would run with no database and say nothing; systemd instead
 * refuses to start it and `systemctl --user status baton` names the file.
 */
export function systemdUnit(l: Launch, paths: ServicePaths): string {
  const env = [assignment('PATH', l.path), ...(l.stateHome ? [assignment('XDG_STATE_HOME', l.stateHome)] : [])];
  return `[Unit]
Description=baton: the machine's daemon (AI coding agents in tmux panes, taking turns)

[Service]
Type=simple
ExecStart=${executable(l.node)} ${argument(l.cli)} ${daemonArgs(l).join(' ')}
Restart=on-failure
RestartSec=2
# BATON_BUS_URL and the PostgreSQL variables (PGPASSFILE, …), if any: never written into this unit.
EnvironmentFile=${pathValue(paths.envFile)}
${env.map((e) => `Environment=${e}`).join('\n')}

[Install]
WantedBy=default.target
`;
}

export const ENV_TEMPLATE = `# baton service environment (read by systemd: KEY=value lines). Keep this file private (chmod 600).
# BATON_BUS_URL=postgres://user@host/db   (the password goes in ~/.pgpass, or PGPASSWORD= here)
`;

/**
 * Is the unit enabled — linked from a target's `.wants/` (what `systemctl --user enable` makes of WantedBy=)?
 * Read from the unit's own folder, so uninstall knows without asking a user manager that may not be running.
 */
export function enabledLinks(unitDir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(unitDir);
  } catch {
    return [];
  }
  return names
    .filter((n) => n.endsWith('.wants') || n.endsWith('.requires'))
    .map((n) => join(unitDir, n, 'baton.service'))
    .filter((link) => {
      try {
        return lstatSync(link).isSymbolicLink();
      } catch {
        return false;
      }
    });
}

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The launchd agent for macOS (~/Library/LaunchAgents/dev.baton.daemon.plist). */
export function launchdPlist(l: Launch): string {
  const args = [l.node, l.cli, ...daemonArgs(l)].map((a) => `    <string>${xml(a)}</string>`);
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
