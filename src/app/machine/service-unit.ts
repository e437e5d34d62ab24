/**
 * `baton service`: the machine's daemon surviving reboots and crashes — a systemd user unit (Linux) or launchd
 * agent (macOS) running `baton daemon --machine --stay [--agents]` (bring-back.ts). The database's URL comes
 * from an environment file (mode 0600), never the unit: units are world-readable (`systemctl cat`).
 */
import { lstatSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { UsageError } from '../input.js';

/** Under $XDG_CONFIG_HOME: systemd/user/baton.service, baton/env. */
export interface ServicePaths {
  unit: string;
  envFile: string;
}

export function servicePaths(env: NodeJS.ProcessEnv = process.env): ServicePaths {
  const config = env.XDG_CONFIG_HOME?.startsWith('/') ? env.XDG_CONFIG_HOME : join(homedir(), '.config');
  return { unit: join(config, 'systemd', 'user', 'baton.service'), envFile: join(config, 'baton', 'env') };
}

// `%` starts a systemd specifier in every value: an XDG_CONFIG_HOME holding "%" made systemd drop the
// EnvironmentFile= line ("Invalid slot", passed by `systemd-analyze verify`), so it is written `%%` everywhere.
const specifiers = (s: string): string => s.replace(/%/g, '%%');

/** Inside double quotes systemd undoes C escapes: `\\`, `\"`, and `\xNN` for a control character. */
const cQuoted = (s: string): string =>
  s
    .replace(/[\\"]/g, '\\$&')
    .replace(/[\u0000-\u001F\u007F]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);

/** ExecStart='s program: quoted, specifiers doubled, `$` as written (systemd 252 keeps `$$` there two dollars). */
function executable(path: string): string {
  const why = 'quote, backslash or control character';
  if (!path.startsWith('/') || /["'\\\u0000-\u001F\u007F]/.test(path))
    throw new UsageError(`systemd cannot run a program at this path (${why}): ${JSON.stringify(path)}`);
  return `"${specifiers(path)}"`;
}

/** An argument of a command line: quoted, specifiers and `$` (a variable there) doubled. */
const argument = (s: string): string => `"${specifiers(cQuoted(s)).replace(/\$/g, '$$$$')}"`;

/** One `NAME=value` of Environment=: quoted, specifiers doubled; `$` means nothing there. */
const assignment = (name: string, value: string): string => `"${specifiers(cQuoted(`${name}=${value}`))}"`;

/** A path setting (EnvironmentFile=) is the rest of its line: no quotes (they'd be in the name), specifiers doubled. */
function pathValue(path: string): string {
  const why = 'not absolute, or a control character';
  if (!path.startsWith('/') || /[\u0000-\u001F\u007F]/.test(path) || path !== path.trim())
    throw new UsageError(`systemd cannot be given this path in a unit (${why}): ${JSON.stringify(path)}`);
  return specifiers(path);
}

/**
 * The service's PATH: the installing shell's, frozen (a user manager's /usr/bin:/bin lacks a Homebrew or Nix
 * tmux), each folder once (nested shells repeat them) and without empty or relative entries (they would name
 * the working folder). Re-run install after moving tmux (docs/reference.md).
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
 * The unit (no Documentation=: baton has no manual page). Its environment file is required (no `-`): without
 * it the service would run with no database silently; systemd refuses instead, and `status` names the file.
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

/** The unit's enable links (`.wants/`), read from its folder: uninstall needs no running user manager. */
export function enabledLinks(unitDir: string): string[] {
  let names: string[] = [];
  try {
    names = readdirSync(unitDir);
  } catch {}
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
