/**
 * Every statement of the PostgreSQL bus, one module per concern, built once per schema (`bus.schema`,
 * default baton) and kept: a statement's text names its schema, so two schemas in one database are two
 * buses that never read each other's rows. What is not a table but must still differ between schemas —
 * the lease's advisory lock, the NOTIFY channel, the tmux fence key — is derived from `scoped()`.
 *
 * The default schema keeps the names and keys it always had, so a baton from before `bus.schema` and
 * this one still exclude each other on the same conversation (one lease, one channel).
 */
import { BUS_SCHEMA_NAME, DEFAULT_BUS_SCHEMA } from '../../../config/schema.js';
import { approvalsSql } from './approvals.js';
import { archiveSql } from './archive.js';
import { conversationsSql } from './conversations.js';
import { directorySql } from './directory.js';
import { eventsSql } from './events.js';
import { leaseSql } from './lease.js';
import { metaSql } from './meta.js';
import { rejectedSql } from './rejected.js';
import { relaySql } from './relay.js';
import { requestsSql } from './requests.js';
import { turnsSql } from './turns.js';
import { waitingSql } from './waiting.js';

function build(schema: string) {
  const s = `"${schema}"`;
  return {
    schema,
    /**
     * `name` (a conversation's) made distinct per schema: itself in the default schema, `schema/name` in
     * any other (no conversation name has a "/", so the two never meet).
     */
    scoped: (name: string): string => (schema === DEFAULT_BUS_SCHEMA ? name : `${schema}/${name}`),
    meta: metaSql(s, schema),
    conversations: conversationsSql(s),
    turns: turnsSql(s),
    waiting: waitingSql(s),
    approvals: approvalsSql(s),
    rejected: rejectedSql(s),
    archive: archiveSql(s),
    requests: requestsSql(s),
    lease: leaseSql(s),
    relay: relaySql(s),
    events: eventsSql(s),
    directory: directorySql(s),
  };
}

export type Sql = ReturnType<typeof build>;

const built = new Map<string, Sql>();

/** The statements of `schema`, built the first time it is asked for. */
export function sqlFor(schema: string): Sql {
  const known = built.get(schema);
  if (known) return known;
  // Checked by the config already; checked again because the name goes into statements as it is.
  if (!BUS_SCHEMA_NAME.test(schema)) throw new Error(`"${schema}" is not a schema name baton uses (bus.schema)`);
  return built.set(schema, build(schema)).get(schema)!;
}
