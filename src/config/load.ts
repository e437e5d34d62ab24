/**
 * Where the config comes from, found as git finds its repository: `--config`, else `BATON_CONFIG` (set in every
 * agent pane by `baton up`), else `config.json` in `BATON_HOME`, else in the current folder or the nearest above.
 * Only `status` and `doctor` fall back to the embedded default (`fallback`): `baton post` in agents/claude1/
 * fell back to it and wrote a message into ./messages/ that no daemon would ever deliver.
 */
import { readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ConfigError, DEFAULT_CONFIG, NO_URL_PROBLEM, parseConfig, type Config } from './config.js';

export interface ConfigSource {
  /** The config file, or null: no file, use the embedded default. */
  file: string | null;
  /** Where relative paths resolve: the file's folder, or (embedded default) BATON_HOME or the cwd. */
  baseDir: string;
}

export function locateConfig(flag: string | undefined, cwd = process.cwd(), env = process.env): ConfigSource {
  const explicit = flag ?? (env.BATON_CONFIG || undefined);
  if (explicit) {
    const file = resolve(cwd, explicit);
    return { file, baseDir: dirname(file) };
  }
  if (env.BATON_HOME) {
    const home = resolve(cwd, env.BATON_HOME);
    const file = join(home, 'config.json');
    return isFile(file) ? { file, baseDir: home } : { file: null, baseDir: home };
  }
  const start = resolve(cwd);
  for (let dir = start; ; dir = dirname(dir)) {
    const file = join(dir, 'config.json');
    if (isFile(file)) return { file, baseDir: dir };
    if (dirname(dir) === dir) return { file: null, baseDir: start };
  }
}

const isFile = (path: string): boolean => {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
};

export interface LoadOptions {
  /**
   * 'optional': in an agent's pane (`post`, `mcp`: no database URL there, its messages go through its machine's
   * daemon) a PostgreSQL config with no URL loads with an empty one; opening the database then says why not.
   */
  busUrl?: 'required' | 'optional';
  /** No config file: 'default' loads the embedded default (`status`, `doctor`); 'refuse' (default) throws. */
  fallback?: 'default' | 'refuse';
  /** The machine name to load it as (default BATON_HOST, else the hostname): `ls` reads other names' (app/machine/). */
  host?: string;
}

/** The environment a config is parsed with: this process's, with the machine name asked for. */
const envFor = (opts: LoadOptions): NodeJS.ProcessEnv =>
  opts.host === undefined ? process.env : { ...process.env, BATON_HOST: opts.host };

export function loadConfig(source: ConfigSource, opts: LoadOptions = {}): Config {
  const { file, baseDir } = source;
  if (file === null) {
    if (opts.fallback === 'default') return parseConfig(DEFAULT_CONFIG, null, baseDir, envFor(opts));
    // A command that needs a config and found none says so in one line (exit 2).
    const none = `no config.json in ${baseDir} or any folder above it: "baton init" makes one, or give --config FILE`;
    throw new ConfigError('baton', [`${none} (or BATON_CONFIG)`], false);
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT')
      throw new ConfigError(file, ['no such file — run "baton init" to make one here, or give --config FILE'], false);
    if (code === 'EISDIR')
      throw new ConfigError(file, ['this is a folder, not a config file — give --config FOLDER/config.json'], false);
    if (code === 'EACCES' || code === 'EPERM')
      throw new ConfigError(file, ['cannot read it: permission denied'], false);
    throw new ConfigError(file, [`cannot read the file (${code ?? String(err)})`], false);
  }
  return configFromText(text, { file, baseDir }, opts);
}

/** A config file's text, read already (the daemon hashes what it reads, then parses that same text). */
export function configFromText(text: string, source: ConfigSource & { file: string }, opts: LoadOptions = {}): Config {
  const { file, baseDir } = source;
  let raw: unknown;
  try {
    raw = JSON.parse(text.startsWith('\uFEFF') ? text.slice(1) : text);
  } catch (err) {
    throw new ConfigError(file, [`not valid JSON: ${jsonError(text, (err as Error).message)}`]);
  }
  const env = envFor(opts);
  if (opts.busUrl !== 'optional') return parseConfig(raw, file, baseDir, env);
  try {
    return parseConfig(raw, file, baseDir, env);
  } catch (err) {
    if (!(err instanceof ConfigError) || !err.problems.some((p) => p.startsWith(NO_URL_PROBLEM))) throw err;
    // The URL is the only thing missing (else the same problems come back): parsed with a stand-in, then blanked.
    const c = parseConfig(raw, file, baseDir, { ...env, BATON_BUS_URL: 'postgres://' });
    return c.bus.kind === 'postgres' ? { ...c, bus: { ...c.bus, url: '' } } : c;
  }
}

/** JSON.parse's "… at position 57" as "… at line 3, column 5" (a person opens the file in an editor). */
export function jsonError(text: string, message: string): string {
  const m = /^(.*?)(?: in JSON)? at position (\d+)/.exec(message);
  if (!m) return message.replace(/ in JSON$/, '');
  const before = text.slice(0, Number(m[2]));
  const line = before.split('\n').length;
  const column = before.length - before.lastIndexOf('\n');
  return `${m[1]} at line ${line}, column ${column}`;
}
