/**
 * `baton <command> [--config FILE]`: arguments by node's util.parseArgs (strict), failures as the exit codes of
 * docs/protocol.md §8 (0 ok, 1 failure, 2 usage or config error, 3 lock held). Every command's spec is loaded, none
 * of what they run (imported in `run`: command.ts), so help and --version start in node's time.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { VERSION } from '../app/paths.js';
import type { CommandSpec, Invocation } from './command.js';
import { isClosed, onClosedOutput, UsageError, whenOutputCloses } from './command.js';
import { COMMANDS } from './commands/index.js';
import { closest } from '../core/suggest.js';

const GLOBAL_HELP = `baton ${VERSION} — AI coding agents in tmux panes, talking in strict turns

Usage: baton <command> [options] [--config FILE]

Commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(9)} ${c.summary}`)
  .join('\n')}

Global options:
  --config FILE   the conversation's config (default: $BATON_CONFIG, else ./config.json,
                  else the built-in two-agent default)
  -h, --help      help for baton or for a command
  -v, --version   print the version

Exit codes: 0 ok, 1 failure, 2 usage or config error, 3 another daemon holds the lock.
Run "baton <command> --help" for details.

Example:
  baton init myproject && cd myproject && baton up --demo`;

export function commandHelp(c: CommandSpec): string {
  const examples = c.examples.map((e) => `  ${e}`).join('\n');
  const heading = `Example${c.examples.length > 1 ? 's' : ''}:`;
  return `Usage: baton ${c.usage} [--config FILE]\n\n${c.summary}\n\n${c.help.trim()}\n\n${heading}\n${examples}\n`;
}

/** One line for a usage error, then where to read more: never the whole help (20 lines that bury the error). */
function usageError(name: string, message: string, spec: CommandSpec): string {
  return `baton ${name}: ${message}\nUsage: baton ${spec.usage} [--config FILE]   (more: baton ${name} --help)\n`;
}

/** Split argv into the command name and the rest; `--config X` may stand before the command. */
function splitCommand(argv: string[]): { name: string | undefined; rest: string[] } {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') break;
    if (a === '--config') {
      i++;
      continue;
    }
    if (!a.startsWith('-')) return { name: a, rest: [...argv.slice(0, i), ...argv.slice(i + 1)] };
  }
  return { name: undefined, rest: argv };
}

function unknownCommand(name: string): string {
  const guess = closest(name, Object.keys(COMMANDS));
  const suggestion = guess ? ` — did you mean "${guess}"?` : '';
  return `baton: unknown command "${name}"${suggestion}  (baton --help lists the commands)\n`;
}

/** parseArgs' error as one line, with a suggestion for a mistyped option. */
function parseProblem(err: Error & { code?: string }, options: ParseArgsConfig['options'], takesText: boolean): string {
  const unknown = /^Unknown option '(-{1,2})([^']*)'/.exec(err.message);
  if (err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && unknown) {
    const given = unknown[2]!;
    const guess = unknown[1] === '--' ? closest(given, Object.keys(options ?? {})) : null;
    const looksLikeText = takesText && (given.includes(' ') || unknown[1] === '-');
    return (
      `unknown option ${unknown[1]}${given}${guess ? ` — did you mean --${guess}?` : ''}` +
      (looksLikeText ? ' (text that starts with "-" goes after "--")' : '')
    );
  }
  const missing = /^Option '(-[^ ]*)(?:, )?(--[^ ]*)? <value>' argument missing/.exec(err.message);
  if (missing) return `${missing[2] ?? missing[1]} needs a value`;
  const ambiguous = /^Option '(-[^']*)' argument is ambiguous/.exec(err.message);
  if (ambiguous) return `${ambiguous[1]} needs a value (one that starts with "-" is written ${ambiguous[1]}=-…)`;
  const noValue = /^Option '(?:-\w, )?(--[^']*)' does not take an argument/.exec(err.message);
  if (noValue) return `${noValue[1]} takes no value`;
  return err.message.split('\n')[0]!.replace(/\. To specify a positional argument.*$/, '');
}

/**
 * `args` parsed with baton's options and `own` (a command's, or baton's own before any command: `baton --versoin`
 * got the whole help and no word of the typo), or what is wrong as one line.
 */
function parse(args: string[], own: ParseArgsConfig['options'], takesText = true): Invocation | string {
  const options = { config: { type: 'string' }, help: { type: 'boolean', short: 'h' }, ...own } as const;
  try {
    const { values, positionals } = parseArgs({ args, options, allowPositionals: true, strict: true });
    return { values, positionals };
  } catch (err) {
    return parseProblem(err as Error, options, takesText);
  }
}

/** Write `text` to stdout (exit 0) or, when not `ok`, to stderr (exit 2, a usage error). */
function say(ok: boolean, text: string): 0 | 2 {
  (ok ? process.stdout : process.stderr).write(text);
  return ok ? 0 : 2;
}

export async function main(argv: string[]): Promise<number> {
  const { name, rest } = splitCommand(argv);
  if (name === undefined || name === 'help') {
    const topic = name === 'help' ? rest.find((a) => !a.startsWith('-')) : undefined;
    if (topic) return COMMANDS[topic] ? say(true, commandHelp(COMMANDS[topic])) : say(false, unknownCommand(topic));
    const wrong = name === undefined ? parse(rest, { version: { type: 'boolean', short: 'v' } }, false) : null;
    if (typeof wrong === 'string')
      return say(false, `baton: ${wrong}\nUsage: baton <command> [options] [--config FILE]   (more: baton --help)\n`);
    if (rest.includes('--version') || rest.includes('-v')) return say(true, `${VERSION}\n`);
    return say(name === 'help' || rest.includes('--help') || rest.includes('-h'), `${GLOBAL_HELP}\n`);
  }
  const spec = COMMANDS[name];
  if (!spec) return say(false, unknownCommand(name));
  const inv = parse(rest, spec.options);
  if (typeof inv === 'string') return say(false, usageError(name, inv, spec));
  if (inv.values.help) return say(true, commandHelp(spec));
  if (typeof spec.reads === 'function' ? spec.reads(inv) : spec.reads) whenOutputCloses(() => process.exit(0));
  try {
    return await spec.run(inv);
  } catch (err) {
    if (err instanceof UsageError) return say(false, usageError(name, err.message, spec));
    const { reportFailure } = await import('./failure.js'); // the error classes load with what failed
    return reportFailure(err);
  }
}

// Output to a closed pipe: command.ts onClosedOutput. Without a listener, EPIPE is an unhandled 'error' event.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') onClosedOutput(stream);
    else if (!isClosed(stream)) throw err; // a closed stream's later errors (written after destroy) are expected
  });
}

const code = await main(process.argv.slice(2));
// Let stdout drain before leaving; the daemon command returns only once it has stopped.
process.exitCode = code;
// A command that failed is done: a connection left half-open by the failure (node-postgres keeps the socket
// of a refused SCRAM exchange) must not keep it waiting — it hung past 30 s after printing its error.
if (code !== 0) setTimeout(() => process.exit(code), 500).unref();
