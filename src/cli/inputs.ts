/** What commands read when they run: their config, a text or standard input, how to attach to tmux. */
import { ConfigError, type Config } from '../config/config.js';
import { loadConfig, locateConfig, type LoadOptions } from '../config/load.js';
import { readStdin } from '../lib/stdin.js';
import type { Tmux } from '../terminal/tmux.js';
import { type Invocation, UsageError } from './command.js';

/** The command's config (load.ts finds it); none found: exit 2 unless `opts.fallback` is 'default'. */
export function configFrom(inv: Invocation, opts: LoadOptions = {}): Config {
  return loadConfig(locateConfig(inv.values.config as string | undefined), opts);
}

/**
 * For the commands that must work when config.json is broken (`down`, `status`, `doctor`: they act on what
 * runs): the config, or the file that failed to load and its error. No file found is still an error.
 */
export function configOrBroken(
  inv: Invocation,
  opts: LoadOptions = {},
): { ok: true; config: Config } | { ok: false; file: string; error: ConfigError } {
  const source = locateConfig(inv.values.config as string | undefined);
  try {
    return { ok: true, config: loadConfig(source, opts) };
  } catch (err) {
    if (!(err instanceof ConfigError) || source.file === null) throw err;
    return { ok: false, file: source.file, error: err };
  }
}

/** How far stdin may go past inbox.max_bytes: a bit over is read and refused with its size (`post`); GBs are not. */
const STDIN_MARGIN = 64 * 1024;

/** TEXT as given, or, for "-", standard input read to its end (lib/stdin.ts), at most max_bytes + 64 KiB. */
export async function textOrStdin(arg: string, config: Config): Promise<string> {
  if (arg !== '-') return arg;
  const max = config.inbox.max_bytes;
  if (process.stdin.isTTY) process.stderr.write('baton: reading the text from this terminal; end it with Ctrl-D\n');
  const r = await readStdin(max + STDIN_MARGIN);
  if (r.kind === 'over')
    throw new UsageError(
      `standard input holds more than ${r.limit} bytes, and a message may be at most inbox.max_bytes (${max}): nothing was read further`,
    );
  if (r.kind === 'failed') throw new UsageError(`cannot read standard input: ${r.why}`);
  return r.text;
}

/** How a person attaches, on the server baton uses (with -L when a private socket is set). */
export function attachHint(t: Tmux, session: string): string {
  return ['tmux', ...t.prefix, 'attach', '-t', session].join(' ');
}
