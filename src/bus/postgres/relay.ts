/**
 * The file API on the PostgreSQL bus (docs/protocol.md §10): each daemon reads its own agents' direction folders as
 * the files bus does (folders/intake.ts), in name order (a file being written holds later ones back). A file is
 * renamed into `.relaying/` (relay-claims.ts), stored with a relay key unique to that claim, then removed: killed
 * in between, the next start stores it again and the key makes that a no-op. The insert commits with
 * synchronous_commit off (its fsync was ≈1.5 of ≈7.8 ms per message), so the file stays claimed until the flushed
 * WAL passes the commit. A failed store is retried (relay-stranded.ts); a data exception rejects the file.
 * docs/decisions/0005-postgres-round-trips.md.
 */
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { failpoint } from '../../lib/failpoint.js';
import { ensureDir, moveNoClobber } from '../../lib/fsx.js';
import type { Hint } from '../bus.js';
import { FencedError } from '../lease.js';
import { examine, type Examined } from '../folders/inbox.js';
import { Intake, type IntakeOptions } from '../folders/intake.js';
import type { Direction } from '../../config/config.js';
import { unstorable } from './db.js';
import { type Claiming, claimInto, claimOf, dropFolder, listClaimed, nameOf } from './relay-claims.js';
import { type ClaimedFile, Stranded } from './relay-stranded.js';

const RELAYING = '.relaying';

/** How many files this machine's folders have in `.relaying/`: claimed and not yet known stored for good. */
export async function relayingCount(directions: readonly Direction[]): Promise<number> {
  let n = 0;
  for (const d of directions) n += listClaimed(join(d.dir, RELAYING)).length;
  return n;
}

/** What storing one claimed file came to: stored; dropped (gone, changed, or rejected); failed (kept, retried). */
type Relayed = 'stored' | 'dropped' | 'failed';

/**
 * Claims in this process, counted across all its relays, so no two claimed files share a relay key: a count per
 * relay gave three conversations of one daemon one key for three `opening.json` of the same millisecond — the
 * second and third inserts were no-ops, their files removed as stored: lost (machines-shared.test.ts).
 */
let claims = 0;

/** The intake's options (its folders' rejections, settle time, …) and where its files are stored. */
export interface RelayOptions extends Omit<IntakeOptions, 'alsoWatch'> {
  conversation: string;
  host: string;
  /** Store one message (`key`: a claim stored again is a no-op); not `durable`: its Written, for settle(). */
  store: (m: Claimed) => Promise<Written | null>;
  /** The server's WAL, written (past every commit before `asked`, a performance.now()) and flushed; its start. */
  wal: () => Promise<Wal>;
}

/**
 * A commit not known durable yet: the server's start time (a restart makes older positions meaningless) and a
 * WAL position at or after its commit record — null until the next look, which takes the insert position then
 * (asking right after each insert was one more round trip per message).
 */
export interface Written {
  lsn: bigint | null;
  epoch: string;
  /** When the commit was known done (performance.now()). */
  at: number;
}

/** How a file was examined before it was claimed, when valid: checked again by digest only. */
type Known = Extract<Examined, { kind: 'valid' }> | null;

/** A claimed file's message, to be stored under its relay key. */
type Claimed = { d: Direction; file: string; body: string; key: string; durable: boolean };

export type Wal = { inserted: bigint; flushed: bigint; epoch: string; asked: number };

export class Relay {
  /** Its agents' folders, read as the files bus reads them (what it rejects: `intake.rejected`). */
  readonly intake: Intake;
  /** Claimed files stored without waiting for the disk: removed once their insert is durable. */
  private pending: Array<ClaimedFile & { at: Written }> = [];
  /** Claimed files whose store failed: stored again, oldest first, with backoff. */
  private readonly stranded: Stranded;
  /** Files whose claim failed for a reason other than their going (said once each): `<direction>/<name>`. */
  private readonly unclaimable = new Set<string>();

  constructor(
    private readonly directions: readonly Direction[],
    private readonly opts: RelayOptions,
  ) {
    this.intake = new Intake(directions, { ...opts, alsoWatch: [] });
    this.stranded = new Stranded(opts.log);
  }

  async ensureFolders(): Promise<void> {
    await this.intake.ensureFolders();
    const make = (d: string) => (this.opts.anchor ? this.opts.anchor.makeBelow(d) : ensureDir(d));
    for (const d of this.directions) await make(join(d.dir, RELAYING));
  }

  watch(hint: (h: Hint) => void): Promise<void> {
    this.stranded.wakeWith(hint);
    return this.intake.watch(hint);
  }

  unwatch(): Promise<void> {
    this.stranded.stop();
    return this.intake.unwatch();
  }

  /** How many of these folders' messages wait in `.relaying/` for a store that failed. */
  strandedIn(directions: readonly string[]): number {
    return this.stranded.count(directions);
  }

  rescan(): Promise<void> {
    return this.intake.rescan();
  }

  /** Finish relays and rejections a crash cut short (start-up). */
  async resume(): Promise<void> {
    for (const note of await this.intake.recover()) this.opts.log.warn(note);
    for (const d of this.directions) {
      const dir = join(d.dir, RELAYING);
      for (const as of listClaimed(dir, true)) await this.storeClaimed({ d, dir, as }, true);
    }
  }

  /** Move every valid file into the database, oldest first per folder. Returns how many. */
  async run(): Promise<number> {
    let n = 0;
    for (const f of this.stranded.due()) {
      const r = await this.storeClaimed(f, true);
      if (r === 'stored') n++;
      if (r === 'failed') break; // the rest wait for the next try
    }
    for (const q of await this.intake.queues()) {
      if (this.stranded.holds(q.direction)) continue; // its stranded file goes first: messages keep their order
      for (const w of q.items) {
        if (!w.ready) break; // a file still being written keeps its place in line
        const claimed = join(q.direction.dir, RELAYING);
        const { as } = claimOf(`${Date.now()}-${process.pid}-${claims++}`, w.name);
        const c = this.claim(q.direction, w.name, as);
        this.intake.folderOf(q.direction.name).entries.delete(w.name);
        if (c === 'gone') continue; // the next look says why
        if (c === 'failed') break; // the folder's later files wait behind it: messages keep their order
        // Examined just now, before the claim: the same bytes are not parsed and validated again.
        const known = w.result?.kind === 'valid' ? w.result : null;
        const r = await this.storeClaimed({ d: q.direction, dir: claimed, as }, false, known);
        if (r === 'stored') n++;
        if (r === 'failed') break;
      }
    }
    // Last, not first: asking where the WAL is costs a round trip, which sat between a file's arrival and
    // its insert (and, on the receiving machine, before every read of the queue) — ~0.4 ms of each delivery.
    await this.settle();
    return n;
  }

  /** Claim `name` as `as`; a failure is said once (a long name failed silently and waited for ever). */
  private claim(d: Direction, name: string, as: string): Claiming['kind'] {
    const c = claimInto(join(d.dir, RELAYING), join(d.dir, name), as);
    const key = `${d.name}/${name}`;
    const said = this.unclaimable.delete(key);
    if (c.kind === 'failed') {
      this.unclaimable.add(key);
      if (!said)
        this.opts.log.warn(
          `cannot claim ${key} to relay it (${c.why}); it and the folder's later files wait, tried again`,
        );
    } else if (said && c.kind === 'claimed') this.opts.log.info(`${key} is claimed now`);
    return c.kind;
  }

  /** Store a claimed file, or put it back in its folder when it is no longer valid (it changed). */
  private async storeClaimed(f: ClaimedFile, durable: boolean, known: Known = null): Promise<Relayed> {
    const { d, dir, as } = f;
    const name = nameOf(as);
    const e = await examine({ dir, name: as, route: d, maxBytes: this.opts.maxBytes, known });
    if (e.kind !== 'valid') {
      if (e.kind !== 'gone') this.intake.folderOf(d.name).dirty.add(await moveNoClobber(join(dir, as), d.dir, name));
      return this.dropped(f);
    }
    const key = `${this.opts.conversation}/${this.opts.host}/${d.name}/${as}`;
    let at: Written | null;
    try {
      at = await this.opts.store({ d, file: name, body: JSON.stringify(e.message), key, durable });
    } catch (err) {
      return this.failed(f, name, err);
    }
    failpoint('relay_stored');
    this.stranded.done(f);
    if (at) this.pending.push({ d, dir, as, at });
    else await remove(dir, as);
    return 'stored';
  }

  /**
   * A store that threw: the message refused by the server for its own data is rejected here with the
   * reason (never retried: it held the conversation for ever); anything else keeps the file in
   * `.relaying/`, tried again. A lost or unproven lease is the daemon's to handle: thrown on.
   */
  private async failed(f: ClaimedFile, name: string, err: unknown): Promise<Relayed> {
    const reason = unstorable(err);
    if (reason !== null) {
      await this.intake.rejector.rejectFrom(this.intake.folderOf(f.d.name), name, reason, { src: join(f.dir, f.as) });
      return this.dropped(f);
    }
    const fenced = err instanceof FencedError;
    this.stranded.add(f, fenced ? null : err instanceof Error ? err.message : String(err));
    if (fenced) throw err;
    return 'failed';
  }

  /** No longer claimed (put back, gone or rejected): its long name's folder removed, no longer stranded. */
  private dropped(f: ClaimedFile): Relayed {
    dropFolder(f.dir, f.as);
    this.stranded.done(f);
    return 'dropped';
  }

  /** Remove the claimed files whose insert is durable now; store again, durably, those a server restart may have lost. */
  private async settle(): Promise<void> {
    if (!this.pending.length) return;
    const now = await this.opts.wal();
    const left: typeof this.pending = [];
    for (const p of this.pending.splice(0)) {
      if (p.at.epoch !== now.epoch) await this.storeClaimed(p, true);
      else if (p.at.lsn === null) left.push(now.asked > p.at.at ? { ...p, at: { ...p.at, lsn: now.inserted } } : p);
      else if (p.at.lsn > now.flushed) left.push(p);
      else await remove(p.dir, p.as);
    }
    this.pending.push(...left);
  }
}

/** A claimed file stored for good: removed, with a long name's folder. */
async function remove(dir: string, as: string): Promise<void> {
  await unlink(join(dir, as)).catch(() => {});
  dropFolder(dir, as);
}
