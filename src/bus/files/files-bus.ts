/**
 * The files bus (the embedded default: one machine, nothing to install): the conversation lives under
 * `message_dir` — direction folders, state.json, archive/, rejected/, pending/, requests/, events.jsonl.
 * This is its read side, client side and admin; delivery.ts is the daemon's side.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, rename } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import type { Config, Direction } from '../../config/config.js';
import type { ArchiveRecord } from '../../core/record.js';
import type { Request } from '../../core/requests.js';
import type { State } from '../../core/state.js';
import { silent, type Logger } from '../../lib/log.js';
import type { Bus, BusCheck, DeliveryBus, LeaseHolding } from '../bus.js';
import type { HostView } from '../reader.js';
import { listApprovals, listRejected } from './listings.js';
import type { EventObserver, EventSource } from '../events.js';
import { archivedCounters, readRecord, recordIds } from './archive.js';
import { FilesDelivery } from './delivery.js';
import { FileEventSource } from './event-log.js';
import { archiveHeld, heldRecord } from './held.js';
import { ensureDir } from '../../lib/fsx.js';
import { FolderAnchor } from '../anchor.js';
import { postToFolder } from '../folders/outbox.js';
import { waitingIn } from '../folders/inbox.js';
import { layout, type Layout } from './layout.js';
import { acquireLock, daemonStatus } from './lock.js';
import { readArchiveView } from './recovery.js';
import { storedRejections } from '../folders/rejected.js';
import { awaitReply, pendingRequests, submitRequest, withdrawRequest } from './requests.js';
import { readStateFile, writeStateFile } from './state-file.js';

export class FilesBus implements Bus {
  readonly kind = 'files' as const;
  readonly l: Layout;
  readonly events: EventSource;
  /** The project and message folder as its daemon's first lease found them (anchor.ts): one per daemon's run. */
  private readonly anchor: FolderAnchor;

  constructor(private readonly config: Config) {
    this.l = layout(config);
    this.events = new FileEventSource(this.l.events);
    this.anchor = new FolderAnchor(config);
  }

  get where(): string {
    return this.l.root;
  }

  delivery(log: Logger = silent, observe?: EventObserver): DeliveryBus {
    return new FilesDelivery(this.config, this.l, log, { anchor: this.anchor, observe });
  }

  // ---- read side ------------------------------------------------------------------------------
  readonly readState = () => readStateFile(this.l.state);
  readonly waitingCounts = () => waitingIn(this.config.directions);
  /** Nothing is relayed on the files bus: a file is taken from its folder in the turn step itself. */
  readonly relaying = async () => 0;
  readonly rejectedCount = async () => (await storedRejections(this.l.rejected)).length;
  readonly approvalKeys = async () => (await listApprovals(this.config, this.l, 0)).map((a) => a.file);
  /** A record, archived or held back in state.json (held.ts): the same to a reader. */
  async record(id: string): Promise<ArchiveRecord | null> {
    const r = await readRecord(this.l.archive, id);
    if (r) return r;
    const held = await heldRecord(this.l);
    return held?.id === id ? held : null;
  }

  async recordIds(): Promise<string[]> {
    const [ids, held] = await Promise.all([recordIds(this.l.archive), heldRecord(this.l)]);
    return held && !ids.includes(held.id) ? [...ids, held.id] : ids;
  }

  readonly rejections = (limit: number) => listRejected(this.l.rejected, limit);
  readonly approvalsView = (cap: number) => listApprovals(this.config, this.l, cap);
  readonly archiveView = () => readArchiveView(this.config, this.l);
  readonly daemon = () => daemonStatus(this.l);
  readonly requestsWaiting = async () => (await pendingRequests(this.l.requests)).length;

  async records(): Promise<ArchiveRecord[]> {
    const all = await Promise.all((await this.recordIds()).map((id) => this.record(id)));
    return all.filter((r): r is ArchiveRecord => r !== null);
  }

  /** The lock's holder while it is alive and fresh (files bus: one machine, whose processes it may look at). */
  async leaseHolder(): Promise<LeaseHolding> {
    const d = await daemonStatus(this.l);
    return d.running ? { kind: 'alive', holder: d.holder } : { kind: 'free' };
  }

  async hosts(): Promise<HostView[]> {
    const { running: alive, holder } = await daemonStatus(this.l);
    return [{ host: this.config.host, alive, holder, last_heartbeat: null, agents: [...this.config.order] }];
  }

  async checks(daemonRunning: boolean): Promise<BusCheck[]> {
    if (daemonRunning) return [];
    const entries = await readdir(this.l.claims, { recursive: true, withFileTypes: true }).catch(() => []);
    const claimed = entries.filter((e) => !e.isDirectory()).length;
    const detail = claimed ? `${claimed} entries in ${this.l.claims} (the next daemon start puts them back)` : 'none';
    return [{ name: 'claims', level: claimed === 0 ? 'ok' : 'warn', detail }];
  }

  // ---- client side ----------------------------------------------------------------------------
  readonly post = (d: Direction, message: Record<string, unknown>) =>
    postToFolder(d, message, this.config.inbox.max_bytes);
  readonly submit = (request: Request) => submitRequest(this.l.requests, request);
  readonly awaitReply = (name: string, timeoutMs: number) => awaitReply(this.l.requests, name, timeoutMs);
  readonly withdraw = (name: string) => withdrawRequest(this.l.requests, name);

  // ---- admin ----------------------------------------------------------------------------------

  async prepare(state: State): Promise<void> {
    const l = this.l;
    await Promise.all([l.root, l.archive, l.rejected, ...this.config.directions.map((d) => d.dir)].map(ensureDir));
    // Only the lease holder writes state.json: the running daemon, or (before one starts) this.
    // With an archive but no state.json, the daemon rebuilds the state from the archive instead.
    const none = !(await daemonStatus(l)).running && (await readStateFile(l.state)) === null;
    if (none && (await archivedCounters(l.archive)).length === 0) await writeStateFile(l.state, state);
  }

  async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const lease = await acquireLock(this.l);
    try {
      return await fn();
    } finally {
      await lease.release();
    }
  }

  /** Under exclusive(): a record state.json holds back is archived first, never dropped with it. */
  async overwriteState(state: State): Promise<void> {
    await archiveHeld(this.l);
    await writeStateFile(this.l.state, state);
  }

  /** Move the last conversation's runtime data to message_dir/history/<time>/ (never deleted). */
  async setAside(): Promise<string | null> {
    const l = this.l;
    await archiveHeld(l); // history keeps it in its archive
    const dest = join(l.root, 'history', new Date().toISOString().replace(/[:.]/g, '-'));
    const moves: [string, string][] = [];
    for (const p of [l.state, l.archive, l.rejected, l.events, l.claims, l.pending, l.requests, l.outcome])
      if (existsSync(p)) moves.push([p, join(dest, basename(p))]);
    for (const d of this.config.directions) {
      for (const name of existsSync(d.dir) ? await readdir(d.dir) : [])
        moves.push([join(d.dir, name), join(dest, d.name, name)]);
    }
    if (!moves.length) return null;
    for (const [from, to] of moves) {
      await mkdir(resolve(to, '..'), { recursive: true });
      await rename(from, to);
    }
    return dest;
  }
}
