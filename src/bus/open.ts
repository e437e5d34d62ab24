/** The bus a config names (docs/protocol.md §10: `bus.kind`, files by default). */
import type { Config } from '../config/config.js';
import type { Bus } from './bus.js';
import { FilesBus } from './files/files-bus.js';
import { isConnectionError } from './postgres/db.js';
import { PostgresBus } from './postgres/postgres-bus.js';

/** The bus's storage cannot be reached now (the database is down or cut off): try again later. */
export const isBusUnavailable = (err: unknown): boolean => isConnectionError(err);

export function openBus(config: Config): Bus {
  return config.bus.kind === 'postgres' ? new PostgresBus({ ...config, bus: config.bus }) : new FilesBus(config);
}
