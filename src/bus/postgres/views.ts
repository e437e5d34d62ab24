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
import type { LeaseRow } from './sql/directory.js';

export async function hostViews(db: Db, pg: Pg, config: Config): Promise<HostView[]> {
  const { rows } = await run(db, pg.sql.lease.hosts, { conversation: pg.conversation, staleMs: STALE_MS });
  const agents = config.order.map((a): [string, string] => [a, config.agents[a]!.host]);
  return machinesOf(rows, agents);
}

/**
 * Each machine with a lease row (alive while its session holds the lock and it beats), then each other machine
 * an agent (`[name, host]`, in order) runs on.
 */
export function machinesOf(leases: Omit<LeaseRow, 'conversation'>[], agents: [string, string][]): HostView[] {
  const agentsOf = (host: string) => agents.filter(([, h]) => h === host).map(([a]) => a);
  const out: HostView[] = leases.map((l) => ({
    host: l.host,
    alive: !l.released && l.locked && l.fresh,
    holder: l.released ? null : l.holder,
    last_heartbeat: l.heartbeat_at.toISOString(),
    agents: agentsOf(l.host),
  }));
  for (const [, host] of agents)
    if (!out.some((m) => m.host === host))
      out.push({ host, alive: false, holder: null, last_heartbeat: null, agents: agentsOf(host) });
  return out;
}

export async function busChecks(db: Db, pg: Pg, hosts: () => Promise<HostView[]>): Promise<BusCheck[]> {
  const checks: BusCheck[] = [];
  try {
    const found = await schemaVersion(db, pg.sql.schema);
    checks.push({ name: 'database', level: 'ok', detail: `${redact(pg.url)} answers` });
    const level = found === SCHEMA_VERSION ? 'ok' : found < SCHEMA_VERSION ? 'warn' : 'fail';
    const then = found < SCHEMA_VERSION ? 'the next start migrates it' : 'upgrade baton';
    const detail =
      found === SCHEMA_VERSION ? `version ${found}` : `version ${found}, this baton uses ${SCHEMA_VERSION} (${then})`;
    checks.push({ name: 'schema', level, detail });
    for (const h of await hosts()) {
      const heartbeat = h.last_heartbeat ? `, last heartbeat ${h.last_heartbeat}` : '';
      const detail = `${h.alive ? 'daemon alive' : 'no daemon'}${heartbeat} (agents: ${h.agents.join(', ') || 'none'})`;
      checks.push({ name: `host ${h.host}`, level: h.alive ? 'ok' : 'warn', detail });
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
    const text = (k: string) => (typeof m[k] === 'string' ? m[k] : null);
    const file = `${r.direction}/${waitingName(r.seq, r.file)}`;
    const view = { file, from: d.from, to: d.to, type: text('type'), subject: text('subject') };
    return [{ ...view, content: (text('content') ?? '').slice(0, cap) }];
  });
}
