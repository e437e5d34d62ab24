/**
 * What every command shares: its spec, usage errors, output to a closed pipe. Light: `baton --help` loads every
 * spec, so nothing here (or in a command's module outside its `run`) may load a package; a command imports what
 * it runs in `run` (test/unit/cli/light.test.ts). Loading a config and reading standard input are inputs.ts.
 */
import type { ParseArgsConfig } from 'node:util';
import { UsageError } from '../app/input.js';

export { UsageError };

export interface Invocation {
  values: Record<string, unknown>;
  positionals: string[];
}

/** An invocation's values, typed: string options `S`, boolean ones `B` (parseArgs has checked them). */
export type Values<S extends string, B extends string = never> = Partial<Record<S, string> & Record<B, boolean>>;

export interface CommandSpec {
  /** The command and every option its help describes (a test checks they agree). */
  usage: string;
  summary: string;
  help: string;
  /** Shown under "Examples:" in --help: commands a person can paste. */
  examples: string[];
  options: ParseArgsConfig['options'];
  /**
   * True (or true for these options: `doctor` without --repair) when it only reads: a closed output ends it, exit 0.
   * Unset, it changes state and keeps going silenced (onClosedOutput): a closed pipe never stops it half-way.
   */
  reads?: boolean | ((inv: Invocation) => boolean);
  /** What the command does; it imports its modules here, when it runs (see the header). */
  run(inv: Invocation): Promise<number>;
}

/** parseArgs options, one of `type` per name: `{ ...optionsOf('boolean', 'demo', 'fresh') }`. */
export const optionsOf = (type: 'boolean' | 'string', ...names: string[]): Record<string, { type: typeof type }> =>
  Object.fromEntries(names.map((n) => [n, { type }]));

export function noPositionals(inv: Invocation): void {
  if (inv.positionals.length) throw new UsageError(`unexpected argument "${inv.positionals[0]}"`);
}

/** Print a request's answer (as JSON with --json); its exit code: 0 done, 1 refused. */
export function answered(reply: { ok: boolean; message: string }, json: boolean): 0 | 1 {
  process.stdout.write(json ? `${JSON.stringify(reply)}\n` : `${reply.message}\n`);
  return reply.ok ? 0 : 1;
}

/** Until Ctrl-C (or SIGTERM): a command that serves or follows ends here, cleanly. */
export const untilStopped = (): Promise<void> =>
  new Promise((resolve) => {
    for (const sig of ['SIGINT', 'SIGTERM']) process.once(sig, () => resolve());
  });

let closedOutput: () => void = () => {};
const closed = new Set<NodeJS.WriteStream>();

/**
 * `stream` went to a closed pipe (`baton log | head -1`): it is silenced (its further errors are expected) and
 * the command's rule runs (whenOutputCloses): by default it keeps going — `baton up 2>&1 | head -1` exiting here
 * left one of two agents started and no daemon. A command that only reads (CommandSpec.reads) ends with exit 0.
 */
export function onClosedOutput(stream: NodeJS.WriteStream): void {
  if (closed.has(stream)) return;
  closed.add(stream);
  // consola and every command write through stream.write: a no-op from now on, as if it had been written.
  stream.write = ((...args: unknown[]) => {
    const done = args.at(-1);
    if (typeof done === 'function') queueMicrotask(() => (done as () => void)());
    return true;
  }) as typeof stream.write;
  closedOutput();
}

/** Whether `stream` went to a closed pipe (its errors are then expected: onClosedOutput). */
export const isClosed = (stream: NodeJS.WriteStream): boolean => closed.has(stream);

/** What a closed output does to the running command (by default nothing: it goes on silenced). */
export function whenOutputCloses(fn: () => void): void {
  closedOutput = fn;
}
