/**
 * What every command shares and the CLI needs before any command runs: its spec, usage errors, output to
 * a closed pipe. Light on purpose — `baton --help` loads every command's spec, so nothing here (or in a
 * command's module outside its `run`) may load a package; what a command runs it imports in `run`
 * (test/unit/cli/light.test.ts). Loading a config and reading standard input are inputs.ts.
 */
import type { ParseArgsConfig } from 'node:util';
import { UsageError } from '../app/input.js';

export { UsageError };

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
  /** What the command does; it imports its modules here, when it runs (see the header). */
  run(inv: Invocation): Promise<number>;
}

export function noPositionals(inv: Invocation): void {
  if (inv.positionals.length) throw new UsageError(`unexpected argument "${inv.positionals[0]}"`);
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
