/**
 * The relay's database side (relay.ts is its file side): where a claimed file is stored — under its relay
 * key, with a NOTIFY that wakes its receiver's machine, fenced by the daemon's lease — where its rejections
 * are listed, and where the server's WAL is, which says when a store that did not wait for the disk is
 * durable.
 */
import type { Logger } from '../../lib/log.js';
import type { FolderAnchor } from '../anchor.js';
import type { EventLog } from '../events.js';
import { isFenced, type Lease } from '../lease.js';
import { hostOf, type Config } from '../../config/config.js';
import type { Db } from './db.js';
import { messagesFor, rowHint } from './hints.js';
import { ASIDE } from '../folders/aside.js';
import { Relay, type Wal } from './relay.js';
import { relayedHere, type Pg } from './rows.js';
import { run } from './sql/bind.js';
import { wal } from './sql/relay.js';
import { carrying } from './carried-events.js';
import { insertRejected } from './store.js';

/**
 * The WAL's position, asked at most every 250 ms per pool however many relays (conversations) a process
 * runs: an answer asked before a commit says nothing of it, so such a commit waits for the next one. (A
 * claimed file only waits longer to be removed; asked every 50 ms, the question ran beside nearly every
 * delivery on a busy machine, on the same two cores as the receiver's turn step.) Every store answers it
 * too (heard): at 500 turns a second the question of its own was 0.024 transactions a turn, now asked only
 * by a relay that stored nothing for 250 ms.
 */
const WAL_EVERY_MS = 250;
const walAnswers = new WeakMap<Db, Promise<Wal>>();
const walHeard = new WeakMap<Db, Wal>();
function heard(db: Db, w: Wal): void {
  if ((walHeard.get(db)?.asked ?? -1) < w.asked) walHeard.set(db, w);
}
async function walOf(db: Db): Promise<Wal> {
  const h = walHeard.get(db);
  if (h && performance.now() - h.asked < WAL_EVERY_MS) return h;
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
  /** The daemon's project and message folder (bus/anchor.ts). */
  anchor?: FolderAnchor;
}

/**
 * This machine's relay into the conversation: its agents' folders, rejections kept on its disk (rejected/,
 * with their notes) and listed in the database, every store fenced by the daemon's lease.
 */
export function relayInto({ config, db, fastDb = db, pg, events, log, held, anchor }: RelayInto): Relay {
  const rejectedDir = `${config.messageDir}/rejected`;
  const relayEvents: EventLog = {
    emit: async (event, fields = {}) => {
      if (event === 'rejected' && !isFenced(held())) {
        const stored_as = `${pg.host}:${rejectedDir}/${String(fields.stored_as)}`;
        const [file, direction] = [String(fields.file ?? ''), String(fields.direction ?? '')];
        const row = { stored_as, file, direction, reason: String(fields.reason), body: null };
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
    asideDir: `${config.messageDir}/${ASIDE}`,
    events: relayEvents,
    log,
    ...(anchor ? { anchor } : {}),
    store: async ({ d, file, body, key, durable }) => {
      held()?.check();
      // fastDb's sessions commit without waiting for the disk (synchronous_commit off).
      const asked = performance.now();
      const r = await carrying(pg, (events) =>
        run(durable ? db : fastDb, pg.sql.relay.store, {
          conversation: pg.conversation,
          direction: d.name,
          file,
          body,
          key,
          channel: pg.channel,
          payload: messagesFor(hostOf(config, d.to)),
          hint: rowHint(d.name, file, body),
          events,
        }),
      );
      const row = r.rows[0]!;
      heard(db, { inserted: lsnOf(row.inserted), flushed: lsnOf(row.flushed), epoch: row.epoch, asked });
      // Not stored now (the key was there: an earlier store of this very file) or stored durably: done.
      return durable || !row.stored ? null : { lsn: null, epoch: row.epoch, at: performance.now() };
    },
    wal: () => walOf(db),
  });
}
