/**
 * A command that threw: what is said, and its exit code (docs/protocol.md §8: 1 failure, 2 config error,
 * 3 another daemon holds the lock; main.ts answers usage errors itself). Loaded only once a command has
 * failed: the error classes come with the config, bus and state modules, which `baton --help` must not load.
 */
import { RegistryUnreadable } from '../app/machine/registry.js';
import { LeaseHeldError, StoreChanged } from '../bus/bus.js';
import { explainBusError } from '../bus/open.js';
import { ConfigError } from '../config/config.js';
import { StateError } from '../core/state.js';
import { log } from '../lib/log.js';

export function reportFailure(err: unknown): 1 | 2 | 3 {
  const known = [ConfigError, LeaseHeldError, StateError, StoreChanged, RegistryUnreadable].some(
    (t) => err instanceof t,
  );
  // The database's errors, each one line a person can act on: never a stack trace, never the password.
  const other = () => explainBusError(err) || (err instanceof Error ? (err.stack ?? err.message) : String(err));
  log.error(known ? (err as Error).message : other());
  return err instanceof ConfigError ? 2 : err instanceof LeaseHeldError ? 3 : 1;
}
