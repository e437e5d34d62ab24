/**
 * Which failures mean "the database is away, try again" (the daemon waits and retries) and which are a
 * real error (it stops, saying why). A daemon that took a pool's connect timeout for a bug exited in the
 * middle of a database restart and left the conversation without a daemon.
 */
import { lsnOf } from '../../../../src/bus/postgres/relay-into.js';
import { describe, expect, it } from 'vitest';
import { isConnectionError, redact } from '../../../../src/bus/postgres/db.js';

const err = (message: string, code?: string) => Object.assign(new Error(message), code ? { code } : {});

describe('isConnectionError', () => {
  it.each([
    ['connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'],
    ['read ECONNRESET', 'ECONNRESET'],
    ['the database system is starting up', '57P03'],
    ['terminating connection due to administrator command', '57P01'],
    ['sorry, too many clients already', '53300'],
    ['canceling statement due to statement timeout', '57014'],
    ['timeout exceeded when trying to connect', undefined],
    ['Connection terminated unexpectedly', undefined],
    ['Connection terminated due to connection timeout', undefined],
    ['Client has encountered a connection error and is not queryable', undefined],
  ])('%s: the database is away', (message, code) => {
    expect(isConnectionError(err(message, code))).toBe(true);
  });

  it.each([
    ['relation "baton.archive" does not exist', '42P01'],
    ['duplicate key value violates unique constraint', '23505'],
    ["Cannot read properties of null (reading 'release')", undefined],
  ])('%s: a real error', (message, code) => {
    expect(isConnectionError(err(message, code))).toBe(false);
  });
});

describe('redact', () => {
  it('never shows the password', () => {
    expect(redact('postgres://baton:s3cret@db:5432/baton?sslmode=require')).not.toContain('s3cret');
    expect(redact('not a url :: s3cret')).not.toContain('s3cret');
  });
});

describe('lsnOf', () => {
  it('orders WAL positions as the server does: the part before the slash counts first', () => {
    expect(lsnOf('0/0')).toBe(0n);
    expect(lsnOf('16/B374D848')).toBe((0x16n << 32n) | 0xb374d848n);
    expect(lsnOf('1/0') > lsnOf('0/FFFFFFFF')).toBe(true);
  });
});
