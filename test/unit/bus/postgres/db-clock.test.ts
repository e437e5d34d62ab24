/** The conversation's clock on the PostgreSQL bus (db-clock.ts): the database's time, from the lease's round trips. */
import { describe, expect, it } from 'vitest';
import { DbClock } from '../../../../src/bus/postgres/db-clock.js';

const local = () => performance.timeOrigin + performance.now();
const HOUR = 3600_000;

describe('the database clock', () => {
  it("is this process's own clock until the database has said its time", () => {
    expect(Math.abs(new DbClock().now() - local())).toBeLessThan(50);
  });

  it("takes the database's time at the middle of the round trip, and runs on from there, hours back if need be", () => {
    const c = new DbClock();
    const before = c.now(); // read on this process's clock first
    const sent = performance.now();
    // The database is an hour behind this machine (this machine's clock is wrong): its answer says so.
    c.sample(local() - HOUR, sent, sent);
    expect(Math.abs(c.now() - (local() - HOUR))).toBeLessThan(50);
    expect(c.now()).toBeLessThan(before - HOUR + 1000);
  });

  it('believes the sample with the shortest round trip among the recent ones', () => {
    const c = new DbClock();
    const t = performance.now();
    const origin = performance.timeOrigin;
    // 10 ms round trip, database 5 s ahead; then one that waited 900 ms for a lock, off by its wait.
    c.sample(origin + t + 5 + 5000, t, t + 10);
    c.sample(origin + t + 900 + 5000, t, t + 900);
    expect(Math.abs(c.now() - (local() + 5000))).toBeLessThan(50);
  });

  it('never goes back for the jitter of a new sample; a nonsense sample is ignored', () => {
    const c = new DbClock();
    const t = performance.now();
    const origin = performance.timeOrigin;
    c.sample(origin + t + 1 + 300, t, t + 2); // 300 ms ahead, 2 ms round trip
    const before = c.now();
    c.sample(origin + t + 0.5, t, t + 1); // a shorter round trip, 300 ms back: believed, but held off
    expect(c.now()).toBeGreaterThanOrEqual(before);
    c.sample(origin + t + HOUR, t, t - 1); // answered before it was sent: ignored
    expect(c.now()).toBeLessThan(before + 1000);
  });
});
