/** The bus a config names (docs/protocol.md §10: `bus.kind`, files by default), and the way a post goes. */
import { isLocal, type Config } from '../config/config.js';
import type { Bus, Posting } from './bus.js';
import type { Directory } from './directory.js';
import { FilesBus } from './files/files-bus.js';
import { postToFolder } from './folders/outbox.js';
import { PgDirectory } from './postgres/directory.js';
import { NoDatabaseUrl } from './postgres/no-database.js';
import { PostgresBus } from './postgres/postgres-bus.js';

/** isBusUnavailable: the storage cannot be reached now (the database down or cut off): try again later. */
export { isConnectionError as isBusUnavailable } from './postgres/db.js';
/** explainBusError: the storage refused or failed to answer, as one line a person can act on; else null. */
export { explainDbError as explainBusError } from './postgres/db-errors.js';

export function openBus(config: Config): Bus {
  return config.bus.kind === 'postgres' ? new PostgresBus({ ...config, bus: config.bus }) : new FilesBus(config);
}

/**
 * How an agent's message is posted: into its outgoing folder when the agent runs on this machine (on the
 * PostgreSQL bus its daemon relays the folder exactly once, so `baton post` needs no database or password,
 * and a database away only delays it); else (another machine's agent, posted from a person's shell that
 * reaches the database) straight into the database, under a key of its own.
 */
export function postingFor(config: Config, sender: string): { via: 'folder' | 'database'; posting: Posting } {
  if (config.bus.kind === 'postgres' && !isLocal(config, sender)) {
    if (!config.bus.url) {
      const reason = new NoDatabaseUrl().message; // an agent's pane posting for another machine's agent
      return { via: 'database', posting: { post: async () => ({ kind: 'refused', reason }) } };
    }
    return { via: 'database', posting: new PostgresBus({ ...config, bus: config.bus }) };
  }
  return { via: 'folder', posting: { post: (d, message) => postToFolder(d, message, config.inbox.max_bytes) } };
}

/**
 * Every conversation of the database at `url` (its schema `schema`, default baton), with its machines:
 * `baton ls --bus`. Reads only. The files bus has none: its conversations are folders (the registry).
 */
export function openDirectory(url: string, schema?: string): Directory {
  return new PgDirectory(url, schema);
}
