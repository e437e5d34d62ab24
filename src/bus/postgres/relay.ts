/**
 * The file API on the PostgreSQL bus (docs/protocol.md §10): each machine's daemon watches its own agents' direction
 * folders exactly as the files bus does (files/intake.ts: safe reads, settle time, rejections with a
 * reason) and moves each valid file into the database, so an agent's instructions do not change.
 *
 * A file is first renamed into the folder's `.relaying/` (a writer that replaces the name from then on
 * makes a new message), stored with a relay key unique to that claimed file (kept in `relayed` for
 * good, so it outlives the message's waiting row), then removed. Killed anywhere in between, the next
 * start finds it in `.relaying/` and stores it again — the key makes that a no-op when the first insert
 * had committed, even if the message was delivered meanwhile: never twice, never lost. Files are
 * relayed in name order, and an earlier file still being written holds later ones back.
 *
 * The insert does not wait for the disk (its fsync was ≈1.5 ms of the ≈7.8 ms a message took across
 * machines, measured): it commits with synchronous_commit off, so its NOTIFY goes out at once, and the
 * claimed file stays in `.relaying/` until the insert is durable — until the server's flushed WAL has
 * passed the position after its commit (any later durable commit, such as the receiver's turn step, or
 * the WAL writer within a fraction of a second, gets it there). Should the server restart in between (its
 * start time changes), the file is stored again, durably, and the key makes that a no-op if the first
 * insert survived.
 */
import { readdir, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { ensureDir, moveNoClobber } from '../../lib/fsx.js';
import type { Logger } from '../../lib/log.js';
import type { Hint } from '../bus.js';
import type { EventLog } from '../events.js';
import { isFenced, type Lease } from '../lease.js';
import { examine } from '../files/inbox.js';
import { Intake } from '../files/intake.js';
import { hostOf, type Config, type Direction } from '../../config/config.js';
import type { Db } from './db.js';
import { messagesFor, rowHint } from './hints.js';
import { relayedHere, type Pg } from './rows.js';
import { run } from './sql/bind.js';
import { wal } from './sql/relay.js';
import { insertRejected } from './store.js';

const RELAYING = '.relaying';

/**
 * Claims in this process, counted across every relay in it: with the conversation in the key too, no two
 * claimed files share a relay key. (A count per relay gave three conversations served by one daemon the
 * same key for three `opening.json` written in the same millisecond; the second and third inserts were
 * no-ops and their files were removed as stored — lost. Seen in machines-shared.test.ts.)
 */
let claims = 0;

export interface RelayOptions {
  conversation: string;
  host: string;
  maxBytes: number;
  settleMs: number;
  rejectedDir: string;
  events: EventLog;
  log: Logger;
  /**
   * Store one message; `key` makes a repeat of the same claimed file a no-op. `durable`: wait for the
   * disk; otherwise the answer names the server that committed it (its start time), for `settle` to check.
   */
  store: (m: Claimed) => Promise<Written | null>;
  /**
   * Where the server's WAL is — written (past every commit made before `asked`) and flushed — and since
   * when it runs; `asked`: when the question was sent (performance.now()).
   */
  wal: () => Promise<Wal>;
}

/**
 * A commit not known durable yet: the server's start time (a restart makes older positions meaningless)
 * and a WAL position at or after its commit record — unknown (null) until the first look after it, which
 * takes the server's insert position then (past every commit made before). Asking for it right after
 * each insert was one more round trip per message.
 */
export interface Written {
  lsn: bigint | null;
  epoch: string;
  /** When the commit was known done (performance.now()). */
  at: number;
}

/** A claimed file's message, to be stored under its relay key. */
export interface Claimed {
  d: Direction;
  file: string;
  body: string;
  key: string;
  durable: boolean;
}

export interface Wal {
  inserted: bigint;
  flushed: bigint;
  epoch: string;
  asked: number;
}

/**
 * The WAL's position, asked at most every 250 ms per pool however many relays (conversations) a process
 * runs: an answer asked before a commit says nothing of it, so such a commit waits for the next one. (A
 * claimed file only waits longer to be removed; asked every 50 ms, the question ran beside nearly every
 * delivery on a busy machine, on the same two cores as the receiver's turn step.)
 */
const WAL_EVERY_MS = 250;
const walAnswers = new WeakMap<Db, Promise<Wal>>();
async function walOf(db: Db): Promise<Wal> {
  const last = walAnswers.get(db);
  if (last) {
    const w = await last.catch(() => null);
    if (w && performance.now() - w.asked < WAL_EVERY_MS) return w;
    if (walAnswers.get(db) !== last) return walOf(db); // another relay asked meanwhile
  }
  const asked = performance.now();
  const p = run(db, wal, {}).then(({ rows: [row] }) => ({
    inserted: lsnOf(row!.inserted),
    flushed: lsnOf(row!.flushed),
    epoch: row!.epoch,
    asked,
  }));
  walAnswers.set(db, p);
  return p;
}

/** `16/B374D848` as a number. */
export const lsnOf = (text: string): bigint => {
  const [hi = '0', lo = '0'] = text.split('/');
  return (BigInt(`0x${hi}`) << 32n) | BigInt(`0x${lo}`);
};

export class Relay {
  /** Its agents' folders, read as the files bus reads them (what it rejects: `intake.rejected`). */
  readonly intake: Intake;
  /** Claimed files stored without waiting for the disk: removed once their insert is durable. */
  private pending: Array<{ d: Direction; dir: string; as: string; at: Written }> = [];

  constructor(
    private readonly directions: readonly Direction[],
    private readonly opts: RelayOptions,
  ) {
    this.intake = new Intake(directions, {
      maxBytes: opts.maxBytes,
      settleMs: opts.settleMs,
      rejectedDir: opts.rejectedDir,
      alsoWatch: [],
      events: opts.events,
      log: opts.log,
    });
  }

  async ensureFolders(): Promise<void> {
    await this.intake.ensureFolders();
    for (const d of this.directions) await ensureDir(join(d.dir, RELAYING));
  }

  watch(hint: (h: Hint) => void): Promise<void> {
    return this.intake.watch(hint);
  }

  unwatch(): Promise<void> {
    return this.intake.unwatch();
  }

  rescan(): Promise<void> {
    return this.intake.rescan();
  }

  /** Finish relays a crash cut short (start-up). */
  async resume(): Promise<void> {
    for (const d of this.directions) {
      const dir = join(d.dir, RELAYING);
      for (const name of await readdir(dir).catch(() => [] as string[])) await this.storeClaimed(d, dir, name, true);
    }
  }

  /** Move every valid file into the database, oldest first per folder. Returns how many. */
  async run(): Promise<number> {
    let n = 0;
    for (const q of await this.intake.queues()) {
      for (const w of q.items) {
        if (!w.ready) break; // a file still being written keeps its place in line
        const claimed = join(q.direction.dir, RELAYING);
        const as = `${Date.now()}-${process.pid}-${claims++}-${w.name}`;
        try {
          await rename(join(q.direction.dir, w.name), join(claimed, as));
        } catch {
          continue; // gone meanwhile: the next look says why
        } finally {
          this.intake.folderOf(q.direction.name).entries.delete(w.name);
        }
        if (await this.storeClaimed(q.direction, claimed, as, false)) n++;
      }
    }
    // Last, not first: asking where the WAL is costs a round trip, which sat between a file's arrival and
    // its insert (and, on the receiving machine, before every read of the queue) — ~0.4 ms of each delivery.
    await this.settle();
    return n;
  }

  /** Store a claimed file, or put it back in its folder when it is no longer valid (it changed). */
  private async storeClaimed(d: Direction, dir: string, as: string, durable: boolean): Promise<boolean> {
    const name = as.replace(/^\d+-\d+-\d+-/, '');
    const e = await examine({ dir, name: as, route: d, maxBytes: this.opts.maxBytes });
    if (e.kind === 'gone') return false;
    if (e.kind !== 'valid') {
      const back = await moveNoClobber(join(dir, as), d.dir, name);
      this.intake.folderOf(d.name).dirty.add(back);
      return false;
    }
    const at = await this.opts.store({
      d,
      file: name,
      body: JSON.stringify(e.message),
      key: `${this.opts.conversation}/${this.opts.host}/${d.name}/${as}`,
      durable,
    });
    if (at) this.pending.push({ d, dir, as, at });
    else await unlink(join(dir, as)).catch(() => {});
    return true;
  }

  /** Remove the claimed files whose insert is durable now; store again, durably, those a server restart may have lost. */
  private async settle(): Promise<void> {
    if (!this.pending.length) return;
    const now = await this.opts.wal();
    const left: typeof this.pending = [];
    for (const p of this.pending.splice(0)) {
      if (p.at.epoch !== now.epoch) await this.storeClaimed(p.d, p.dir, p.as, true);
      else if (p.at.lsn === null) left.push(now.asked > p.at.at ? { ...p, at: { ...p.at, lsn: now.inserted } } : p);
      else if (p.at.lsn > now.flushed) left.push(p);
      else await unlink(join(p.dir, p.as)).catch(() => {});
    }
    this.pending.push(...left);
  }
}

export interface RelayInto {
  config: Config;
  /** Durable sessions: a store after a restart, the WAL's position. */
  db: Db;
  /** Sessions that commit without waiting for the disk (synchronous_commit off): the usual store. */
  fastDb?: Db;
  pg: Pg;
  events: EventLog;
  log: Logger;
  /** The daemon's lease, checked before every store. */
  held: () => Lease | null;
}

/**
 * This machine's relay into the conversation: its agents' folders, rejections kept on its disk (rejected/,
 * with their notes) and listed in the database, every store fenced by the daemon's lease.
 */
export function relayInto({ config, db, fastDb = db, pg, events, log, held }: RelayInto): Relay {
  const rejectedDir = `${config.messageDir}/rejected`;
  const relayEvents: EventLog = {
    emit: async (event, fields = {}) => {
      if (event === 'rejected' && !isFenced(held())) {
        const row = {
          stored_as: `${pg.host}:${rejectedDir}/${String(fields.stored_as)}`,
          file: String(fields.file ?? ''),
          direction: String(fields.direction ?? ''),
          reason: String(fields.reason),
          body: null,
        };
        await insertRejected(db, pg, row).catch((err: unknown) =>
          log.warn(`cannot list a rejection in the database: ${String(err)}`),
        );
      }
      await events.emit(event, fields);
    },
  };
  return new Relay(relayedHere(config), {
    conversation: pg.conversation,
    host: pg.host,
    maxBytes: config.inbox.max_bytes,
    settleMs: config.inbox.settle_ms,
    rejectedDir,
    events: relayEvents,
    log,
    store: async ({ d, file, body, key, durable }) => {
      held()?.check();
      // fastDb's sessions commit without waiting for the disk (synchronous_commit off).
      const r = await run(durable ? db : fastDb, pg.sql.relay.store, {
        conversation: pg.conversation,
        direction: d.name,
        file,
        body,
        key,
        channel: pg.channel,
        payload: messagesFor(hostOf(config, d.to)),
        hint: rowHint(d.name, file, body),
      });
      // Not stored now (the key was there: an earlier store of this very file) or stored durably: done.
      return durable || !r.rows[0]!.stored ? null : { lsn: null, epoch: r.rows[0]!.epoch, at: performance.now() };
    },
    wal: () => walOf(db),
  });
}
