/**
 * A post stored in the database directly (a person's `baton post` for another machine's agent, a final reply),
 * exactly once: each carries a key (conversation, machine, `post`, UUID) kept in `relayed` for good, and a store
 * whose answer was lost is retried with the same key until the server answers (without it, 8 of 104,549 posts
 * across 12 server stops were stored twice). Durable pool: an answer means it is kept.
 * docs/decisions/0007-what-the-database-proves.md.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { hostOf, type Config, type Direction } from '../../config/config.js';
import { initialState } from '../../core/turns.js';
import { isConnectionError, type Db } from './db.js';
import { messagesFor, rowHint } from './hints.js';
import type { Pg } from './rows.js';
import { run } from './sql/bind.js';
import { Json } from './sql/codec.js';
import { ensureConversation } from './store.js';

/** How long a post keeps trying while the server is away (a restart takes a few seconds). */
const POST_PATIENCE_MS = 30_000;
const BACKOFF_MS = [100, 250, 500, 1000, 2000];

export interface DirectPost {
  db: Db;
  pg: Pg;
  config: Config;
  d: Direction;
  /** The message as stored (JSON), checked already. */
  body: string;
  /** The post's name: its waiting row's `file`, the archive's `source_file`. */
  name: string;
  patienceMs?: number;
}

/**
 * Store one post under a key of its own, trying again while the server is away; never twice. Returns null
 * when it is stored, else why it may have been: the server went away after the statement was sent and did
 * not come back in time. Throws the server's error when no attempt reached it (nothing was stored).
 */
export async function storePost(p: DirectPost): Promise<string | null> {
  const { db, pg, config, d, body, name } = p;
  const key = `${pg.conversation}/${pg.host}/post/${randomUUID()}`;
  const deadline = performance.now() + (p.patienceMs ?? POST_PATIENCE_MS);
  const params = {
    conversation: pg.conversation,
    direction: d.name,
    file: name,
    body,
    key,
    channel: pg.channel,
    payload: messagesFor(hostOf(config, d.to)),
    hint: rowHint(d.name, name, body),
    events: Json.of([]), // a command carries no daemon's events
  };
  /** The last error of an attempt that reached the server (it may have committed): from then on, a maybe. */
  let sent = null as Error | null;
  for (let attempt = 0; ; attempt++) {
    try {
      await ensureConversation(db, pg, initialState(config.firstTurn));
      const c = await db.connect();
      try {
        await run(c, pg.sql.relay.store, params);
        c.release();
        return null; // stored now, or (the key was there) by an attempt whose answer was lost: either way, once
      } catch (err) {
        sent = err as Error; // it reached the server: it may have committed
        c.release(err as Error);
        throw err;
      }
    } catch (err) {
      if (!isConnectionError(err)) throw err;
      if (performance.now() >= deadline) {
        if (!sent) throw err; // never reached the server: nothing was stored
        return (
          `the database went away after the message was sent (${sent.message}) and did not come back ` +
          `within ${Math.round((p.patienceMs ?? POST_PATIENCE_MS) / 1000)} s: it may have been stored ` +
          `as ${name} — "baton log" shows it if it was`
        );
      }
      await sleep(BACKOFF_MS[Math.min(attempt, BACKOFF_MS.length - 1)]!);
    }
  }
}
