/**
 * The database as seen from a shell that has no URL for it: an agent's pane on the PostgreSQL bus, which
 * `baton up` does not give BATON_BUS_URL or PGPASSWORD (an agent's messages go through its machine's
 * daemon: bus/open.ts). Every use says so, instead of connecting to whatever database the defaults name.
 */
import type { Db } from './db.js';

export class NoDatabaseUrl extends Error {
  override name = 'NoDatabaseUrl';
  constructor() {
    super(
      'this shell has no URL for the database (bus.url or BATON_BUS_URL): baton keeps it from the agents’ ' +
        'panes — an agent’s messages go through its machine’s daemon',
    );
  }
}

/** A pool that refuses every query and connection with NoDatabaseUrl. */
export function noDatabase(): Db {
  const refuse = () => Promise.reject(new NoDatabaseUrl());
  return { query: refuse, connect: refuse, on: () => undefined, end: async () => {}, ending: false } as unknown as Db;
}
