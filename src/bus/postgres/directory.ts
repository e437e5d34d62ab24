/**
 * Every conversation of one database's schema, with its machines (bus/directory.ts): `baton ls --bus URL`.
 * Reads only — unlike the bus of one conversation it never makes or migrates the schema (a look at a
 * database that has none finds none and leaves none behind). A machine is alive as status reads it
 * (views.ts): its lease's session holds the lock and its heartbeat is fresh by the database's clock.
 */
import { checkState } from '../../core/state.js';
import { DEFAULT_BUS_SCHEMA } from '../../config/schema.js';
import type { Directory, ListedConversation, StoreListing } from '../directory.js';
import { openPool, redact, type Db } from './db.js';
import { STALE_MS } from './lease.js';
import { schemaVersion } from './migrate.js';
import { plain, run } from './sql/bind.js';
import { machinesOf } from './views.js';
import { sqlFor, type Sql } from './sql/index.js';

/** `up --fresh` keeps the old conversation as `<name>@<ISO time>` (store.ts setAside). */
const SET_ASIDE = /@\d{4}-\d\d-\d\dT[\d:.]+Z$/;

const NOW = plain<{ now: Date }>('directory.now', 'SELECT now() AS now');

export class PgDirectory implements Directory {
  private readonly db: Db;
  private readonly sql: Sql;

  constructor(
    private readonly url: string,
    schema: string = DEFAULT_BUS_SCHEMA,
  ) {
    this.sql = sqlFor(schema);
    this.db = openPool(url);
  }

  get where(): string {
    return this.sql.schema === DEFAULT_BUS_SCHEMA
      ? redact(this.url)
      : `${redact(this.url)} (schema "${this.sql.schema}")`;
  }

  async list(): Promise<StoreListing> {
    const { directory } = this.sql;
    const version = await schemaVersion(this.db, this.sql.schema);
    if (!version) {
      const [row] = (await run(this.db, NOW, {})).rows;
      return { where: this.where, schema_version: null, now: row!.now.toISOString(), conversations: [] };
    }
    const rows = (await run(this.db, directory.conversations, {})).rows;
    const leases = (await run(this.db, directory.leases, { staleMs: STALE_MS })).rows;
    const now = rows[0]?.now ?? (await run(this.db, NOW, {})).rows[0]!.now;
    const conversations = rows.map((r): ListedConversation => {
      let state: ListedConversation['state'] = null;
      let problem: string | null = null;
      try {
        state = checkState(r.state, `the state of conversation "${r.name}"`);
      } catch (err) {
        problem = (err as Error).message.split('\n')[0]!;
      }
      const fingerprint = r.config;
      return {
        name: r.name,
        set_aside: SET_ASIDE.test(r.name),
        state,
        problem,
        config: fingerprint ? { fingerprint, host: r.config_host, at: r.config_at?.toISOString() ?? null } : null,
        created_at: r.created_at.toISOString(),
        waiting: r.waiting,
        approvals: r.approvals,
        rejected: r.rejected,
        machines: machinesOf(
          leases.filter((l) => l.conversation === r.name),
          agentHosts(fingerprint),
        ),
      };
    });
    return { where: this.where, schema_version: version, now: now.toISOString(), conversations };
  }
}

/** Each agent's machine, as the recorded fingerprint says (`agents: {name: {host}}`, in `order`). */
function agentHosts(fingerprint: Record<string, unknown> | null): [string, string][] {
  const agents = (fingerprint?.agents ?? {}) as Record<string, { host?: unknown }>;
  const order = Array.isArray(fingerprint?.order) ? (fingerprint.order as string[]) : Object.keys(agents);
  return order.flatMap((a) => (typeof agents[a]?.host === 'string' ? [[a, agents[a].host as string]] : []));
}
