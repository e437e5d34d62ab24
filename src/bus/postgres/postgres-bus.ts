/**
 * The PostgreSQL bus (SPEC §10): a conversation in a database, shared by daemons on several machines.
 * This is its read side, client side and admin; delivery.ts is the daemon's side. Every call first makes
 * sure the schema exists at the version this baton knows (schema.ts): the schema is baton's own.
 */
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { hostOf, type Config, type Direction } from '../../config/config.js';
import { formatId } from '../../core/ids.js';
import type { ArchiveRecord } from '../../core/record.js';
import type { Request, Reply } from '../../core/requests.js';
import type { State } from '../../core/state.js';
import { initialState } from '../../core/turns.js';
import { silent, type Logger } from '../../lib/log.js';
import type { ApprovalView, ArchiveView, Bus, BusCheck, DeliveryBus, Holder, Rejection } from '../bus.js';
import type { HostView } from '../reader.js';
import { openPool, redact, type Db } from './db.js';
import { channelOf, messagesFor } from './hints.js';
import { PgDelivery } from './delivery.js';
import { PgEventSource } from './events.js';
import { acquireLease } from './lease.js';
import { approvalsView, busChecks, hostViews } from './views.js';
import { requestHost, stateOf, waitingName, type Pg } from './rows.js';
import { ensureConversation, ensureSchema } from './store.js';
import { insertRequest } from './requests.js';

export class PostgresBus implements Bus {
  readonly kind = 'postgres' as const;
  readonly events: PgEventSource;
  private readonly db: Db;
  private readonly eventsDb: Db;
  private readonly pg: Pg;

  constructor(private readonly config: Config & { bus: { kind: 'postgres' } }) {
    this.pg = { url: config.bus.url, conversation: config.bus.conversation, host: config.host };
    this.db = openPool(config.bus.url);
    this.eventsDb = openPool(config.bus.url, { durable: false });
    this.events = new PgEventSource(this.db, config.bus.url, config.bus.conversation);
  }

  get where(): string {
    return `${redact(this.pg.url)} (conversation "${this.pg.conversation}")`;
  }

  delivery(log: Logger = silent): DeliveryBus {
    return new PgDelivery(this.config, this.db, this.pg, log, this.eventsDb);
  }

  private async q<R extends Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<R[]> {
    await ensureSchema(this.db);
    return (await this.db.query<R>(sql, params)).rows;
  }

  // ---- read side ------------------------------------------------------------------------------

  async readState(): Promise<State | null> {
    const [row] = await this.q<{ state: unknown }>('SELECT state FROM baton.conversations WHERE name = $1', [
      this.pg.conversation,
    ]);
    return row ? stateOf(row.state, this.pg) : null;
  }

  async waitingCounts(): Promise<Record<string, number>> {
    const rows = await this.q<{ direction: string; n: number }>(
      `SELECT direction, count(*)::int AS n FROM baton.waiting WHERE conversation = $1 AND status = 'waiting' GROUP BY direction`,
      [this.pg.conversation],
    );
    const held: Record<string, number> = {};
    for (const d of this.config.directions) held[d.name] = rows.find((r) => r.direction === d.name)?.n ?? 0;
    return held;
  }

  async rejectedCount(): Promise<number> {
    return (
      await this.q<{ n: number }>('SELECT count(*)::int AS n FROM baton.rejected WHERE conversation = $1', [
        this.pg.conversation,
      ])
    )[0]!.n;
  }

  async approvalKeys(): Promise<string[]> {
    const rows = await this.q<{ seq: string; direction: string; file: string | null }>(
      `SELECT seq, direction, file FROM baton.waiting WHERE conversation = $1 AND status = 'approval' ORDER BY seq`,
      [this.pg.conversation],
    );
    return rows.map((r) => `${r.direction}/${waitingName(r.seq, r.file)}`);
  }

  async records(): Promise<ArchiveRecord[]> {
    return (
      await this.q<{ record: ArchiveRecord }>('SELECT record FROM baton.archive WHERE conversation = $1', [
        this.pg.conversation,
      ])
    ).map((r) => r.record);
  }

  async recordIds(): Promise<string[]> {
    return (
      await this.q<{ id: string }>('SELECT id FROM baton.archive WHERE conversation = $1', [this.pg.conversation])
    ).map((r) => r.id);
  }

  async record(id: string): Promise<ArchiveRecord | null> {
    return (
      (
        await this.q<{ record: ArchiveRecord }>(
          'SELECT record FROM baton.archive WHERE conversation = $1 AND id = $2',
          [this.pg.conversation, id],
        )
      )[0]?.record ?? null
    );
  }

  async rejections(limit: number): Promise<{ count: number; items: Rejection[] }> {
    const rows = await this.q<{
      stored_as: string;
      file: string | null;
      reason: string;
      direction: string | null;
      rejected_at: Date;
    }>(
      'SELECT stored_as, file, reason, direction, rejected_at FROM baton.rejected WHERE conversation = $1 ORDER BY seq DESC LIMIT $2',
      [this.pg.conversation, limit],
    );
    return {
      count: await this.rejectedCount(),
      items: rows.map((r) => ({ ...r, rejected_at: r.rejected_at.toISOString() })),
    };
  }

  approvalsView(cap: number): Promise<ApprovalView[]> {
    return ensureSchema(this.db).then(() => approvalsView(this.db, this.pg, this.config, cap));
  }

  async archiveView(): Promise<ArchiveView> {
    const [agg] = await this.q<{ n: number; c: number }>(
      'SELECT coalesce(max(counter), 0)::int AS n, count(*)::int AS c FROM baton.archive WHERE conversation = $1 AND NOT person',
      [this.pg.conversation],
    );
    const { n, c } = agg!;
    const gaps = c !== n ? `archive has gaps: ${c} records for IDs up to ${formatId(n)}` : null;
    if (n === 0) return { n, last: null, state: initialState(this.config.firstTurn), gaps };
    const last = await this.record(formatId(n));
    const state = {
      current_turn: last!.receiver,
      last_message_id: last!.id,
      message_counter: n,
      pending_reply_to: last!.id,
    };
    return { n, last, state, gaps };
  }

  /** This machine's daemon for this conversation: running while its lease's session holds the lock. */
  async daemon(): Promise<{ running: boolean; pid: number | null; holder: Holder | null }> {
    const h = (await this.hosts()).find((x) => x.host === this.pg.host);
    return h?.alive
      ? { running: true, pid: h.holder?.pid ?? null, holder: h.holder }
      : { running: false, pid: null, holder: null };
  }

  async hosts(): Promise<HostView[]> {
    await ensureSchema(this.db);
    return hostViews(this.db, this.pg, this.config);
  }

  async requestsWaiting(): Promise<number> {
    return (
      await this.q<{ n: number }>(
        'SELECT count(*)::int AS n FROM baton.requests WHERE conversation = $1 AND reply IS NULL',
        [this.pg.conversation],
      )
    )[0]!.n;
  }

  checks(): Promise<BusCheck[]> {
    return busChecks(this.db, this.pg, () => this.hosts());
  }

  // ---- client side ----------------------------------------------------------------------------

  async post(d: Direction, message: Record<string, unknown>): Promise<string> {
    await ensureConversation(this.db, this.pg.conversation, initialState(this.config.firstTurn));
    const [row] = await this.q<{ seq: string }>(
      `WITH w AS (INSERT INTO baton.waiting (conversation, direction, body) VALUES ($1, $2, $3) RETURNING seq) SELECT seq, pg_notify($4, $5) FROM w`,
      [
        this.pg.conversation,
        d.name,
        JSON.stringify(message),
        channelOf(this.pg.conversation),
        messagesFor(hostOf(this.config, d.to)),
      ],
    );
    return `${this.pg.conversation}:${d.name}/${waitingName(row!.seq, null)}`;
  }

  async submit(request: Request): Promise<string> {
    await ensureConversation(this.db, this.pg.conversation, initialState(this.config.firstTurn));
    return insertRequest(
      this.db,
      this.pg,
      requestHost(this.config, request, (await this.readState())?.current_turn),
      request,
    );
  }

  async awaitReply(name: string, timeoutMs: number): Promise<Reply | null> {
    const until = performance.now() + timeoutMs;
    for (;;) {
      const [row] = await this.q<{ reply: Reply | null }>('SELECT reply FROM baton.requests WHERE name = $1', [name]);
      if (row?.reply) {
        await this.db.query('DELETE FROM baton.requests WHERE name = $1', [name]);
        return row.reply;
      }
      if (performance.now() >= until) return null;
      await sleep(25);
    }
  }

  async withdraw(name: string): Promise<boolean> {
    return (
      ((await this.db.query('DELETE FROM baton.requests WHERE name = $1 AND NOT taken', [name])).rowCount ?? 0) > 0
    );
  }

  // ---- admin ----------------------------------------------------------------------------------

  async prepare(state: State): Promise<void> {
    await ensureConversation(this.db, this.pg.conversation, state);
  }

  async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    await ensureConversation(this.db, this.pg.conversation, initialState(this.config.firstTurn));
    const lease = await acquireLease(
      this.pg.url,
      this.pg,
      { pid: process.pid, host: hostname(), started_at: new Date().toISOString() },
      () => {},
    );
    try {
      return await fn();
    } finally {
      await lease.release();
    }
  }

  async overwriteState(state: State): Promise<void> {
    await this.q('UPDATE baton.conversations SET state = $2, version = version + 1 WHERE name = $1', [
      this.pg.conversation,
      JSON.stringify(state),
    ]);
  }

  /** Rename the conversation's rows to `<name>@<time>` (kept, never deleted); the name starts afresh. */
  async setAside(): Promise<string | null> {
    await ensureSchema(this.db);
    const c = await this.db.connect();
    try {
      await c.query('BEGIN');
      const old = this.pg.conversation;
      const to = `${old}@${new Date().toISOString()}`;
      const r = await c.query('UPDATE baton.conversations SET name = $2 WHERE name = $1', [old, to]);
      for (const t of ['waiting', 'archive', 'rejected', 'requests', 'events', 'leases', 'relayed'])
        await c.query(`UPDATE baton.${t} SET conversation = $2 WHERE conversation = $1`, [old, to]);
      await c.query('COMMIT');
      return r.rowCount ? `conversation "${to}" in ${redact(this.pg.url)}` : null;
    } catch (err) {
      await c.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      c.release();
    }
  }
}
