#!/usr/bin/env node
/**
 * `baton <command> [--config FILE]`: parses arguments with node's own util.parseArgs (strict: an unknown
 * flag is a usage error) and maps failures to the exit codes of SPEC §8 — 0 ok, 1 failure, 2 usage or
 * config error, 3 lock held.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ConfigError } from './config.js';
import { LockHeldError } from './lock.js';
import { StateError } from './state.js';
import { COMMANDS, type CommandSpec } from './commands/index.js';
import { log } from './log.js';
import { UsageError, VERSION } from './commands/common.js';

const GLOBAL_HELP = `baton ${VERSION} — AI coding agents in tmux panes, talking in strict turns

Usage: baton <command> [options] [--config FILE]

Commands:
${Object.values(COMMANDS)
  .map((c) => `  ${c.usage.padEnd(34)} ${c.summary}`)
  .join('\n')}

Global options:
  --config FILE   the conversation's config (default: $BATON_CONFIG, else ./config.json,
                  else the built-in two-agent default)
  -h, --help      help for baton or for a command
  -v, --version   print the version

Exit codes: 0 ok, 1 failure, 2 usage or config error, 3 another daemon holds the lock.
Run "baton <command> --help" for details.`;

export function commandHelp(c: CommandSpec): string {
  return `Usage: baton ${c.usage} [--config FILE]\n\n${c.summary}\n\n${c.help.trim()}\n`;
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

export async function main(argv: string[]): Promise<number> {
  const { name, rest } = splitCommand(argv);
  if (name === undefined || name === 'help') {
    const topic = name === 'help' ? rest.find((a) => !a.startsWith('-')) : undefined;
    if (topic) {
      if (COMMANDS[topic]) {
        process.stdout.write(commandHelp(COMMANDS[topic]));
        return 0;
      }
      process.stderr.write(`baton: unknown command "${topic}"\n\n${GLOBAL_HELP}\n`);
      return 2;
    }
    if (rest.includes('--version') || rest.includes('-v')) {
      process.stdout.write(`${VERSION}\n`);
      return 0;
    }
    const asked = name === 'help' || rest.includes('--help') || rest.includes('-h');
    (asked ? process.stdout : process.stderr).write(`${GLOBAL_HELP}\n`);
    return asked ? 0 : 2;
  }
  const spec = COMMANDS[name];
  if (!spec) {
    process.stderr.write(`baton: unknown command "${name}"\n\n${GLOBAL_HELP}\n`);
    return 2;
  }
  const options: ParseArgsConfig['options'] = {
    config: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
    ...spec.options,
  };
  let parsed;
  try {
    parsed = parseArgs({ args: rest, options, allowPositionals: true, strict: true });
  } catch (err) {
    process.stderr.write(`baton ${name}: ${(err as Error).message}\n\n${commandHelp(spec)}`);
    return 2;
  }
  if (parsed.values.help) {
    process.stdout.write(commandHelp(spec));
    return 0;
  }
  try {
    return await spec.run({ values: parsed.values as Record<string, unknown>, positionals: parsed.positionals });
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`baton ${name}: ${err.message}\n\n${commandHelp(spec)}`);
      return 2;
    }
    if (err instanceof ConfigError) {
      log.error(err.message);
      return 2;
    }
    if (err instanceof LockHeldError) {
      log.error(err.message);
      return 3;
    }
    if (err instanceof StateError) {
      log.error(err.message);
      return 1;
    }
    log.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
    return 1;
  }
}

const code = await main(process.argv.slice(2));
// Let stdout drain before leaving; the daemon command returns only once it has stopped.
process.exitCode = code;
