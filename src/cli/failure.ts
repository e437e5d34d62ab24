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
  if (err instanceof ConfigError) {
    log.error(err.message);
    return 2;
  }
  if (err instanceof LeaseHeldError) {
    log.error(err.message);
    return 3;
  }
  if (err instanceof StateError || err instanceof StoreChanged || err instanceof RegistryUnreadable) {
    log.error(err.message);
    return 1;
  }
  // The database's errors, each one line a person can act on: never a stack trace, never the password.
  const explained = explainBusError(err);
  if (explained) {
    log.error(explained);
    return 1;
  }
  log.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
  return 1;
}
