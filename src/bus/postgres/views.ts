/**
 * What status, doctor and the dashboard read about a conversation on the PostgreSQL bus beyond its
 * messages: each machine's daemon (alive while its lease session holds the lock and its heartbeat is
 * fresh — what the database knows; a process of this machine's name is never looked for), the
 * approvals waiting, and doctor's checks (connection, schema version, machines).
 */
import type { Config } from '../../config/config.js';
import type { ApprovalView, BusCheck } from '../bus.js';
import type { HostView } from '../reader.js';
import { redact, type Db } from './db.js';
import { STALE_MS } from './lease.js';
import { waitingName, type Pg } from './rows.js';
import { SCHEMA_VERSION, schemaVersion } from './migrate.js';
import { run } from './sql/bind.js';

export async function hostViews(db: Db, pg: Pg, config: Config): Promise<HostView[]> {
  const { rows } = await run(db, pg.sql.lease.hosts, { conversation: pg.conversation, staleMs: STALE_MS });
  const agentsOf = (host: string) => config.order.filter((a) => config.agents[a]!.host === host);
  const out: HostView[] = rows.map((r) => ({
    host: r.host,
    alive: !r.released && r.locked && r.fresh,
    holder: r.released ? null : r.holder,
    last_heartbeat: r.heartbeat_at.toISOString(),
    agents: agentsOf(r.host),
  }));
  for (const a of config.order) {
    const host = config.agents[a]!.host;
    if (!out.some((h) => h.host === host))
      out.push({ host, alive: false, holder: null, last_heartbeat: null, agents: agentsOf(host) });
  }
  return out;
}

export async function busChecks(db: Db, pg: Pg, hosts: () => Promise<HostView[]>): Promise<BusCheck[]> {
  const checks: BusCheck[] = [];
  try {
    const found = await schemaVersion(db, pg.sql.schema);
    checks.push({ name: 'database', level: 'ok', detail: `${redact(pg.url)} answers` });
    const level = found === SCHEMA_VERSION ? 'ok' : found < SCHEMA_VERSION ? 'warn' : 'fail';
    const then = found < SCHEMA_VERSION ? 'the next start migrates it' : 'upgrade baton';
    checks.push({
      name: 'schema',
      level,
      detail:
        found === SCHEMA_VERSION ? `version ${found}` : `version ${found}, this baton uses ${SCHEMA_VERSION} (${then})`,
    });
    for (const h of await hosts()) {
      const heartbeat = h.last_heartbeat ? `, last heartbeat ${h.last_heartbeat}` : '';
      checks.push({
        name: `host ${h.host}`,
        level: h.alive ? 'ok' : 'warn',
        detail: `${h.alive ? 'daemon alive' : 'no daemon'}${heartbeat} (agents: ${h.agents.join(', ') || 'none'})`,
      });
    }
  } catch (err) {
    checks.push({ name: 'database', level: 'fail', detail: `${redact(pg.url)}: ${(err as Error).message}` });
  }
  return checks;
}

export async function approvalsView(db: Db, pg: Pg, config: Config, cap: number): Promise<ApprovalView[]> {
  const { rows } = await run(db, pg.sql.approvals.listWithBodies, { conversation: pg.conversation });
  return rows.flatMap((r) => {
    const d = config.directions.find((x) => x.name === r.direction);
    if (!d) return [];
    let m: Record<string, unknown> = {};
    try {
      m = JSON.parse(r.body) as Record<string, unknown>;
    } catch {
      /* shown with empty content */
    }
    const content = typeof m.content === 'string' ? m.content : '';
    return [
      {
        file: `${r.direction}/${waitingName(r.seq, r.file)}`,
        from: d.from,
        to: d.to,
        type: typeof m.type === 'string' ? m.type : null,
        subject: typeof m.subject === 'string' ? m.subject : null,
        content: content.slice(0, cap),
      },
    ];
  });
}
