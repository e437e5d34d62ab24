/** Where the installed package keeps what it runs: the CLI, the demo agent, the `baton` wrapper for panes. */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The installed package (holds dist/, bin/, scripts/, web/). */
export const PKG_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const VERSION: string = (JSON.parse(readFileSync(join(PKG_ROOT, 'package.json'), 'utf8')) as { version: string })
  .version;
export const CLI_JS = join(PKG_ROOT, 'dist', 'cli.js');
export const DEMO_JS = join(PKG_ROOT, 'dist', 'demo', 'agent.js');
export const BIN_DIR = join(PKG_ROOT, 'bin');
/** Tracks whether an agent pane's program asked for bracketed paste (tmux < 3.7 cannot say). */
export const PASTE_TRACKER = join(PKG_ROOT, 'scripts', 'paste-mode.pl');
/** The tmux session that runs the daemon (the original tool's name). */
export const WATCHER_SESSION = 'watcher';
