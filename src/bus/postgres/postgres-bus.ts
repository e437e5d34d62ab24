/**
 * The PostgreSQL bus (docs/protocol.md §10): a conversation in a database, shared by daemons on several machines.
 * This is its read side, client side and admin; delivery.ts is the daemon's side. Every call first makes
 * sure the schema exists at the version this baton knows (migrate.ts): the schema is baton's own.
 */
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Config, Direction } from '../../config/config.js';
import { formatId } from '../../core/ids.js';
import type { ArchiveRecord } from '../../core/record.js';
import type { Request, Reply } from '../../core/requests.js';
import type { State } from '../../core/state.js';
import { initialState } from '../../core/turns.js';
import { silent, type Logger } from '../../lib/log.js';
import type {
  ApprovalView,
  ArchiveView,
  Bus,
  BusCheck,
  DeliveryBus,
  Holder,
  LeaseHolding,
  Posted,
  Rejection,
} from '../bus.js';
import { archiveViewOf, type HostView } from '../reader.js';
import { FolderAnchor } from '../anchor.js';
import { ensureDir } from '../../lib/fsx.js';
import { openPool, redact, unstorable, type Db } from './db.js';
import { noDatabase, NoDatabaseUrl } from './no-database.js';
import { PgDelivery } from './delivery.js';
import { pgEventLog, PgEventSource } from './events.js';
import type { EventObserver } from '../events.js';
import { acquireLease, STALE_MS } from './lease.js';
import { leaseHolding } from './lease-holder.js';
import { agreeOnConfig } from './agreement.js';
import { approvalsView, busChecks, hostViews } from './views.js';
import { pgOf, relayedHere, requestHost, stateOf, waitingName, type Pg } from './rows.js';
import { relayingCount } from './relay.js';
import { storePost } from './post.js';
import { checkText, fileName } from '../folders/outbox.js';
import { waitingIn } from '../folders/inbox.js';
import { ensureConversation, ensureSchema, insertRejected, setAside } from './store.js';
import { insertRequest } from './requests.js';
import { DEFAULT_BUS_SCHEMA } from '../../config/schema.js';
import { run, type Statement } from './sql/bind.js';
import { Json } from './sql/codec.js';
import type pg from 'pg';

export class PostgresBus implements Bus {
  readonly kind = 'postgres' as const;
  readonly events: PgEventSource;
  private readonly db: Db;
  private readonly eventsDb: Db;
  private readonly pg: Pg;
  /** This machine's project and message folder as its daemon's first lease found them (bus/anchor.ts). */
  private readonly anchor: FolderAnchor;

  constructor(private readonly config: Config & { bus: { kind: 'postgres' } }) {
    this.anchor = new FolderAnchor(config);
    const { url, conversation, schema } = config.bus;
    this.pg = pgOf({ url, conversation, schema, host: config.host });
    this.db = url ? openPool(url) : noDatabase();
    this.eventsDb = url ? openPool(url, { durable: false }) : this.db;
    this.events = new PgEventSource(this.db, this.pg);
  }

  get where(): string {
    const schema = this.pg.sql.schema === DEFAULT_BUS_SCHEMA ? '' : `, schema "${this.pg.sql.schema}"`;
    return `${redact(this.pg.url)} (conversation "${this.pg.conversation}"${schema})`;
  }

  delivery(log: Logger = silent, observe?: EventObserver): DeliveryBus {
    if (!this.pg.url) throw new NoDatabaseUrl();
    const { config, db, eventsDb, pg, anchor } = this;
    return new PgDelivery({ config, db, eventsDb, pg, log, anchor, observe });
  }

  /** Run `s` once the schema is there; its rows. */
  private async q<P extends object, R extends pg.QueryResultRow>(s: Statement<P, R>, params: P): Promise<R[]> {
    await ensureSchema(this.db, this.pg);
    return (await run(this.db, s, params)).rows;
  }

  /** Its conversation, as most statements name it. */
  private get c() {
    return { conversation: this.pg.conversation };
  }

  // ---- read side ------------------------------------------------------------------------------

  async readState(): Promise<State | null> {
    const [row] = await this.q(this.pg.sql.conversations.state, this.c);
    return row ? stateOf(row.state, this.pg) : null;
  }

  /** Waiting in the database, and in this machine's folders not yet moved there (its daemon away, say). */
  async waitingCounts(): Promise<Record<string, number>> {
    const rows = await this.q(this.pg.sql.waiting.countByDirection, this.c);
    const local = await waitingIn(relayedHere(this.config));
    const held: Record<string, number> = {};
    for (const d of this.config.directions)
      held[d.name] = (rows.find((r) => r.direction === d.name)?.n ?? 0) + (local[d.name] ?? 0);
    return held;
  }

  async rejectedCount(): Promise<number> {
    return (await this.q(this.pg.sql.rejected.count, this.c))[0]!.n;
  }

  relaying(): Promise<number> {
    return relayingCount(relayedHere(this.config));
  }

  async approvalKeys(): Promise<string[]> {
    const rows = await this.q(this.pg.sql.approvals.list, this.c);
    return rows.map((r) => `${r.direction}/${waitingName(r.seq, r.file)}`);
  }

  async records(): Promise<ArchiveRecord[]> {
    return (await this.q(this.pg.sql.archive.records, this.c)).map((r) => r.record);
  }

  async recordIds(): Promise<string[]> {
    return (await this.q(this.pg.sql.archive.ids, this.c)).map((r) => r.id);
  }

  async record(id: string): Promise<ArchiveRecord | null> {
    return (await this.q(this.pg.sql.archive.record, { ...this.c, id }))[0]?.record ?? null;
  }

  async rejections(limit: number): Promise<{ count: number; items: Rejection[] }> {
    const rows = await this.q(this.pg.sql.rejected.latest, { ...this.c, limit });
    return {
      count: await this.rejectedCount(),
      items: rows.map((r) => ({ ...r, rejected_at: r.rejected_at.toISOString() })),
    };
  }

  approvalsView(cap: number): Promise<ApprovalView[]> {
    return ensureSchema(this.db, this.pg).then(() => approvalsView(this.db, this.pg, this.config, cap));
  }

  async archiveView(): Promise<ArchiveView> {
    const [agg] = await this.q(this.pg.sql.archive.summary, this.c);
    const { n, c } = agg!;
    return archiveViewOf(n, c, n ? await this.record(formatId(n)) : null, this.config.firstTurn);
  }

  /** This machine's daemon for this conversation: running while its lease's session holds the lock. */
  async daemon(): Promise<{ running: boolean; pid: number | null; holder: Holder | null }> {
    const h = (await this.hosts()).find((x) => x.host === this.pg.host);
    return h?.alive
      ? { running: true, pid: h.holder?.pid ?? null, holder: h.holder }
      : { running: false, pid: null, holder: null };
  }

  async leaseHolder(): Promise<LeaseHolding> {
    await ensureSchema(this.db, this.pg);
    const h = await leaseHolding(this.db, this.pg, STALE_MS);
    return h.kind === 'stale' ? { kind: 'stale', holder: h.holder } : h;
  }

  async hosts(): Promise<HostView[]> {
    await ensureSchema(this.db, this.pg);
    return hostViews(this.db, this.pg, this.config);
  }

  async requestsWaiting(): Promise<number> {
    return (await this.q(this.pg.sql.requests.unanswered, this.c))[0]!.n;
  }

  checks(): Promise<BusCheck[]> {
    return busChecks(this.db, this.pg, () => this.hosts());
  }

  // ---- client side ----------------------------------------------------------------------------

  /**
   * A post from a shell that reaches the database (another machine's agent), stored directly: under a key of
   * its own (tried again with it while the server is away: post.ts), refused before anything is stored
   * (checkText, as the daemon would), or refused by the server for its own data (refusedPost).
   */
  async post(d: Direction, message: Record<string, unknown>): Promise<Posted> {
    const { db, pg, config } = this;
    const body = JSON.stringify(message);
    const checked = checkText(body, d, config.inbox.max_bytes);
    if (!checked.ok) return { kind: 'refused', reason: checked.reason };
    const name = fileName();
    let unsure: string | null;
    try {
      unsure = await storePost({ db, pg, config, d, body, name });
    } catch (err) {
      return { kind: 'refused', reason: await this.refusedPost(d, err) };
    }
    if (unsure) return { kind: 'uncertain', name, reason: unsure };
    return { kind: 'posted', name, where: `${pg.conversation}:${d.name}/${name}` };
  }

  /**
   * A post that failed: one the server refuses for its own data (a data exception) is listed in `rejected`
   * with the reason and a `rejected` event, and its reason returned — trying again would change nothing.
   * Any other error is thrown as it is.
   */
  private async refusedPost(d: Direction, err: unknown): Promise<string> {
    const reason = unstorable(err);
    if (reason === null) throw err;
    const rejection = { stored_as: `${this.pg.conversation}#post-${new Date().toISOString()}`, direction: d.name };
    await insertRejected(this.db, this.pg, { ...rejection, file: null, reason, body: null });
    // A one-shot command has no lease and so no sample of the database's clock: its event carries this machine's.
    const log = pgEventLog(this.eventsDb, this.pg, { now: () => Date.now() }, { onError: () => {} });
    await log.emit('rejected', { ...rejection, file: null, reason });
    return reason;
  }

  async submit(request: Request): Promise<string> {
    await ensureConversation(this.db, this.pg, initialState(this.config.firstTurn));
    const host = requestHost(this.config, request, (await this.readState())?.current_turn);
    return insertRequest(this.db, this.pg, host, request);
  }

  async awaitReply(name: string, timeoutMs: number): Promise<Reply | null> {
    const until = performance.now() + timeoutMs;
    for (;;) {
      const [row] = await this.q(this.pg.sql.requests.reply, { name });
      if (row?.reply) {
        await run(this.db, this.pg.sql.requests.remove, { name });
        return row.reply;
      }
      if (performance.now() >= until) return null;
      await sleep(25);
    }
  }

  async withdraw(name: string): Promise<boolean> {
    return ((await run(this.db, this.pg.sql.requests.withdraw, { name })).rowCount ?? 0) > 0;
  }

  // ---- admin ----------------------------------------------------------------------------------

  /** `baton up`: the conversation made; refused (ConfigError) when this config is not the one its running machines share. */
  async prepare(state: State): Promise<void> {
    // This machine's folders, made by `up` as on the files bus: its agents may write before the daemon runs,
    // and a running daemon never makes its message folder again (bus/anchor.ts).
    for (const d of relayedHere(this.config)) await ensureDir(d.dir);
    await ensureConversation(this.db, this.pg, state);
    await agreeOnConfig({ db: this.db, pg: this.pg, config: this.config, log: null });
  }

  async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    if (!this.pg.url) throw new NoDatabaseUrl();
    await ensureConversation(this.db, this.pg, initialState(this.config.firstTurn));
    const holder = { pid: process.pid, host: hostname(), started_at: new Date().toISOString() };
    const lease = await acquireLease(this.pg, holder, () => {});
    try {
      return await fn();
    } finally {
      await lease.release();
    }
  }

  async overwriteState(state: State): Promise<void> {
    await this.q(this.pg.sql.conversations.saveState, { ...this.c, state: Json.of(state) });
  }

  /** Rename the conversation's rows to `<name>@<time>` (kept, never deleted); the name starts afresh. */
  async setAside(fresh: State): Promise<string | null> {
    await ensureSchema(this.db, this.pg);
    return setAside(this.db, this.pg, fresh);
  }
}
