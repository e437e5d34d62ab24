/**
 * A daemon's events ride on the statements it sends anyway (carried-events.ts): the `delivered` event was a
 * statement and a NOTIFY of its own after every stamp. The queue's timer is faked, so nothing but the stamp
 * can store the events queued before it: they are in the log when the stamp returns, in the order emitted.
 * One with no statement to carry it is stored on its own once its time is up; a reader in the same process
 * sees every event emitted before it reads.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CARRY_MS, flushEvents } from '../../src/bus/postgres/carried-events.js';
import { openPool } from '../../src/bus/postgres/db.js';
import { PgEventSource, pgEventLog } from '../../src/bus/postgres/events.js';
import { pgOf } from '../../src/bus/postgres/rows.js';
import { ensureConversation, stampRecord } from '../../src/bus/postgres/store.js';
import type { ArchiveRecord } from '../../src/core/record.js';
import { initialState } from '../../src/core/turns.js';
import { waitFor } from '../helpers/harness.js';
import { query } from '../helpers/machines.js';
import { usePostgres } from '../helpers/postgres.js';

const server = usePostgres();

/** A clock that never moves: an event's `ts` is not what is checked. */
const still = { now: () => 0 };

const eventsOf = (conversation: string) =>
  query<{ body: { event: string; n?: number } }>(
    server.url,
    'SELECT body FROM baton.events WHERE conversation = $1 ORDER BY seq',
    [conversation],
  );

afterEach(() => {
  vi.useRealTimers();
});

describe('carried events (PostgreSQL bus)', () => {
  it('an event queued before a stamp is stored by that stamp, in order, and one left alone is stored on its own', async () => {
    const db = openPool(server.url);
    const a = pgOf({ url: server.url, conversation: `carried-a-${process.pid}`, host: 'alpha', schema: 'baton' });
    const b = pgOf({ url: server.url, conversation: `carried-b-${process.pid}`, host: 'alpha', schema: 'baton' });
    for (const pg of [a, b]) await ensureConversation(db, pg, initialState('claude1'));
    const failed: unknown[] = [];
    const log = (pg: typeof a) => pgEventLog(db, pg, still, { onError: (e) => failed.push(e), carried: true });

    // Queued, not stored: emit() returns before the event is in the log, and its timer does not run.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    await log(a).emit('delivered', { n: 1 });
    await log(b).emit('delivered', { n: 2 });
    await log(a).emit('delivered', { n: 3 });
    expect(await eventsOf(a.conversation)).toEqual([]);

    // A stamp of conversation b (of a record that is not there: it stamps nothing) carries all three.
    const record = { id: 'msg_0001' } as ArchiveRecord;
    await stampRecord(db, b, record, { generation: null, gen: null });
    expect((await eventsOf(a.conversation)).map((e) => e.body.n)).toEqual([1, 3]);
    expect((await eventsOf(b.conversation)).map((e) => e.body.n)).toEqual([2]);

    // With no statement to carry it, an event is stored on its own once its time is up.
    await log(a).emit('stopped', { n: 4 });
    expect(await eventsOf(a.conversation)).toHaveLength(2);
    vi.advanceTimersByTime(CARRY_MS);
    vi.useRealTimers();
    await waitFor('stored on its own', async () => (await eventsOf(a.conversation)).length === 3, 5000);
    expect((await eventsOf(a.conversation)).map((e) => e.body.n)).toEqual([1, 3, 4]);

    // A reader in the same process reads what was emitted before it, without waiting.
    await log(b).emit('finished', { n: 5 });
    const seen: unknown[] = [];
    const source = new PgEventSource(db, b);
    const head = await source.head();
    await source.read(head.gen, 0, head.end, (e) => void seen.push(e.n));
    expect(seen).toEqual([2, 5]);

    await flushEvents(a);
    expect(failed).toEqual([]);
  });
});
