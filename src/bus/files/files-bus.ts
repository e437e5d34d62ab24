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
import type { Request, Reply } from '../../core/requests.js';
import type { State } from '../../core/state.js';
import { silent, type Logger } from '../../lib/log.js';
import type { ApprovalView, ArchiveView, Bus, BusCheck, DeliveryBus, LeaseHolding, Posted, Rejection } from '../bus.js';
import type { HostView } from '../reader.js';
import { listApprovals, listRejected } from './listings.js';
import type { EventObserver, EventSource } from '../events.js';
import { archivedCounters, readRecord, recordIds } from './archive.js';
import { FilesDelivery } from './delivery.js';
import { FileEventSource } from './event-log.js';
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

  readState(): Promise<State | null> {
    return readStateFile(this.l.state);
  }

  waitingCounts(): Promise<Record<string, number>> {
    return waitingIn(this.config.directions);
  }

  /** Nothing is relayed on the files bus: a file is taken from its folder in the turn step itself. */
  async relaying(): Promise<number> {
    return 0;
  }

  async rejectedCount(): Promise<number> {
    return (await storedRejections(this.l.rejected)).length;
  }

  async approvalKeys(): Promise<string[]> {
    return (await listApprovals(this.config, this.l, 0)).map((a) => a.file);
  }

  async records(): Promise<ArchiveRecord[]> {
    const ids = await recordIds(this.l.archive);
    return (await Promise.all(ids.map((id) => readRecord(this.l.archive, id)))).filter(
      (r): r is ArchiveRecord => r !== null,
    );
  }

  record(id: string): Promise<ArchiveRecord | null> {
    return readRecord(this.l.archive, id);
  }

  recordIds(): Promise<string[]> {
    return recordIds(this.l.archive);
  }

  rejections(limit: number): Promise<{ count: number; items: Rejection[] }> {
    return listRejected(this.l.rejected, limit);
  }

  approvalsView(cap: number): Promise<ApprovalView[]> {
    return listApprovals(this.config, this.l, cap);
  }

  archiveView(): Promise<ArchiveView> {
    return readArchiveView(this.config, this.l);
  }

  daemon() {
    return daemonStatus(this.l);
  }

  /** The lock's holder while it is alive and fresh (files bus: one machine, whose processes it may look at). */
  async leaseHolder(): Promise<LeaseHolding> {
    const d = await daemonStatus(this.l);
    return d.running ? { kind: 'alive', holder: d.holder } : { kind: 'free' };
  }

  async hosts(): Promise<HostView[]> {
    const d = await daemonStatus(this.l);
    return [
      {
        host: this.config.host,
        alive: d.running,
        holder: d.holder,
        last_heartbeat: null,
        agents: [...this.config.order],
      },
    ];
  }

  async requestsWaiting(): Promise<number> {
    return (await pendingRequests(this.l.requests)).length;
  }

  async checks(daemonRunning: boolean): Promise<BusCheck[]> {
    const checks: BusCheck[] = [];
    if (!daemonRunning) {
      const entries = await readdir(this.l.claims, { recursive: true, withFileTypes: true }).catch(() => []);
      const claimed = entries.filter((e) => !e.isDirectory()).length;
      checks.push({
        name: 'claims',
        level: claimed === 0 ? 'ok' : 'warn',
        detail: claimed ? `${claimed} entries in ${this.l.claims} (the next daemon start puts them back)` : 'none',
      });
    }
    return checks;
  }

  // ---- client side ----------------------------------------------------------------------------

  post(d: Direction, message: Record<string, unknown>): Promise<Posted> {
    return postToFolder(d, message, this.config.inbox.max_bytes);
  }

  submit(request: Request): Promise<string> {
    return submitRequest(this.l.requests, request);
  }

  awaitReply(name: string, timeoutMs: number): Promise<Reply | null> {
    return awaitReply(this.l.requests, name, timeoutMs);
  }

  withdraw(name: string): Promise<boolean> {
    return withdrawRequest(this.l.requests, name);
  }

  // ---- admin ----------------------------------------------------------------------------------

  async prepare(state: State): Promise<void> {
    const l = this.l;
    await Promise.all([l.root, l.archive, l.rejected, ...this.config.directions.map((d) => d.dir)].map(ensureDir));
    // Only the lease holder writes state.json: the running daemon, or (before one starts) this.
    // With an archive but no state.json, the daemon rebuilds the state from the archive instead.
    if (
      !(await daemonStatus(l)).running &&
      (await readStateFile(l.state)) === null &&
      (await archivedCounters(l.archive)).length === 0
    ) {
      await writeStateFile(l.state, state);
    }
  }

  async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const lease = await acquireLock(this.l);
    try {
      return await fn();
    } finally {
      await lease.release();
    }
  }

  overwriteState(state: State): Promise<void> {
    return writeStateFile(this.l.state, state);
  }

  /** Move the last conversation's runtime data to message_dir/history/<time>/ (never deleted). */
  async setAside(): Promise<string | null> {
    const l = this.l;
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
