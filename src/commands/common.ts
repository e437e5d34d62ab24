/** What every command shares: the package root, the version, loading the config, usage errors. */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ParseArgsConfig } from 'node:util';
import { loadConfig, locateConfig, type Config } from '../config.js';
import { Tmux } from '../tmux.js';

/** The installed package (holds dist/, bin/, scripts/). */
export const PKG_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const VERSION: string = (JSON.parse(readFileSync(join(PKG_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
export const CLI_JS = join(PKG_ROOT, 'dist', 'cli.js');
export const DEMO_JS = join(PKG_ROOT, 'dist', 'demo', 'agent.js');
export const BIN_DIR = join(PKG_ROOT, 'bin');
/** The tmux session that runs the daemon (the original tool's name). */
export const WATCHER_SESSION = 'watcher';

export class UsageError extends Error {
  override name = 'UsageError';
}

export interface Invocation {
  values: Record<string, unknown>;
  positionals: string[];
}

export interface CommandSpec {
  /** The command and every option its help describes (a test checks they agree). */
  usage: string;
  summary: string;
  help: string;
  /** Shown under "Examples:" in --help: commands a person can paste. */
  examples: string[];
  options: ParseArgsConfig['options'];
  run(inv: Invocation): Promise<number>;
}

export function configFrom(inv: Invocation): Config {
  return loadConfig(locateConfig(inv.values.config as string | undefined));
}

export const tmux = (): Tmux => new Tmux();

export function noPositionals(inv: Invocation): void {
  if (inv.positionals.length) throw new UsageError(`unexpected argument "${inv.positionals[0]}"`);
}

/** How a person attaches, on the server baton uses (with -L when a private socket is set). */
export function attachHint(t: Tmux, session: string): string {
  return ['tmux', ...t.prefix, 'attach', '-t', session].join(' ');
}

let closedOutput: () => void = () => process.exit(0);

/** stdout or stderr went to a closed pipe (`baton log | head -1`): by default, end quietly with exit 0. */
export function onClosedOutput(): void {
  closedOutput();
}

/** Long-running commands (daemon, ui) stop cleanly instead of exiting on the spot. */
export function whenOutputCloses(fn: () => void): void {
  closedOutput = fn;
}
