/**
 * The leases of one process are renewed together, in one statement a second (heartbeats.ts). What that must
 * not change: one lease whose row a write transaction holds is not renewed while it is held — and does not
 * hold the others' renewal — and is renewed once it is free; one lease taken over is lost alone.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openPool } from '../../src/bus/postgres/db.js';
import { acquireLease } from '../../src/bus/postgres/lease.js';
import { pgOf } from '../../src/bus/postgres/rows.js';
import { ensureConversation } from '../../src/bus/postgres/store.js';
import { initialState } from '../../src/core/turns.js';
import { waitFor } from '../helpers/harness.js';
import { query } from '../helpers/machines.js';
import { usePostgres } from '../helpers/postgres.js';

const server = usePostgres();

describe('shared heartbeats (PostgreSQL bus)', () => {
  it('a lease held by a write waits alone; a lease taken over is lost alone', async () => {
    const db = openPool(server.url);
    const a = pgOf({ url: server.url, conversation: `beats-a-${process.pid}`, host: 'alpha', schema: 'baton' });
    const b = pgOf({ url: server.url, conversation: `beats-b-${process.pid}`, host: 'alpha', schema: 'baton' });
    for (const k of [a, b]) await ensureConversation(db, k, initialState('claude1'));
    const holder = { pid: process.pid, host: 'alpha', started_at: new Date().toISOString() };
    const lost: string[] = [];
    const la = await acquireLease(a, holder, () => lost.push('a'));
    const lb = await acquireLease(b, holder, () => lost.push('b'));
    const beat = async (k: typeof a) =>
      (
        await query<{ at: string }>(
          server.url,
          'SELECT heartbeat_at::text AS at FROM baton.leases WHERE conversation = $1 AND host = $2',
          [k.conversation, k.host],
        )
      )[0]!.at;
    const hold = new pg.Client({ connectionString: server.url });
    await hold.connect();
    try {
      // A write of a's daemon holds its lease row (FOR SHARE, as every write does while it waits).
      await hold.query('BEGIN');
      await hold.query('SELECT 1 FROM baton.leases WHERE conversation = $1 AND host = $2 FOR SHARE', [
        a.conversation,
        a.host,
      ]);
      const a0 = await beat(a);
      const b0 = await beat(b);
      await waitFor('b renewed while a is held', async () => (await beat(b)) !== b0, 10_000);
      const b1 = await beat(b);
      await waitFor('b renewed again', async () => (await beat(b)) !== b1, 10_000);
      expect(await beat(a)).toBe(a0); // no renewal of a can commit while its row is held
      await hold.query('COMMIT');
      await waitFor('a renewed once free', async () => (await beat(a)) !== a0, 10_000);
      expect(lost).toEqual([]);
      la.check();
      lb.check();

      // a taken over (its row's generation moved on): a is lost, b is not.
      await query(server.url, 'UPDATE baton.leases SET generation = generation + 1 WHERE conversation = $1', [
        a.conversation,
      ]);
      await waitFor('a lost', async () => lost.includes('a'), 10_000);
      const b2 = await beat(b);
      await waitFor('b renewed after a was lost', async () => (await beat(b)) !== b2, 10_000);
      expect(lost).toEqual(['a']);
      expect(() => la.check()).toThrow(/took over/);
      lb.check();
    } finally {
      await hold.end();
      await la.release();
      await lb.release();
    }
  }, 60_000);
});
