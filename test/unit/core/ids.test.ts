/**
 * core/ids.ts: the one place that knows what a message ID looks like. The function, the zod/route pattern
 * sources and the record-ID test must all agree on which strings are IDs.
 */
import { describe, expect, it } from 'vitest';
import {
  formatId,
  isRecordId,
  MESSAGE_ID_SOURCE,
  parseId,
  RECORD_ID_SOURCE,
  recordIdOf,
  recordIdsOf,
} from '../../../src/core/ids.js';

const NOT_IDS = [
  '',
  'msg_',
  'msg_1',
  'msg_001',
  'msg_0001 ',
  ' msg_0001',
  'msg_0001\n',
  'MSG_0001',
  'msg-0001',
  'msg_00a1',
  'msg_-001',
  'msg_0001.json',
  'user_001',
  'usr_0001',
  'xmsg_0001',
];

describe('a person’s IDs', () => {
  it('count on their own, padded like an agent’s', () => {
    expect(formatId(1, 'user')).toBe('user_0001');
    expect(formatId(12345, 'user')).toBe('user_12345');
    for (const n of [1, 42, 9999, 10000]) expect(parseId(formatId(n, 'user'), 'user')).toBe(n);
  });

  it('are not an agent’s, and an agent’s are not a person’s', () => {
    expect(parseId('user_0001')).toBeNull();
    expect(parseId('msg_0001', 'user')).toBeNull();
  });
});

describe('what is an ID', () => {
  it('four digits at least, nothing before or after, lower case', () => {
    for (const s of NOT_IDS) {
      expect(parseId(s), s).toBeNull();
      expect(parseId(s, 'user'), s).toBeNull();
      expect(isRecordId(s), s).toBe(false);
    }
  });

  it('a record ID is either kind', () => {
    expect(isRecordId('msg_0001')).toBe(true);
    expect(isRecordId('user_0001')).toBe(true);
    expect(isRecordId('msg_123456')).toBe(true);
  });

  it('leading zeros beyond four digits still name the counter', () => {
    expect(parseId('msg_00042')).toBe(42);
  });
});

describe('the pattern sources', () => {
  const whole = (source: string) => new RegExp(`^${source}$`);
  const samples = [...NOT_IDS, 'msg_0001', 'msg_9999', 'msg_10000', 'user_0001', 'user_123456'];

  it('the message pattern accepts exactly what parseId accepts', () => {
    for (const s of samples) expect(whole(MESSAGE_ID_SOURCE).test(s), s).toBe(parseId(s) !== null);
  });

  it('the record pattern accepts exactly the record IDs', () => {
    for (const s of samples) expect(whole(RECORD_ID_SOURCE).test(s), s).toBe(isRecordId(s));
  });

  it('the record pattern works as part of a longer one (a URL route)', () => {
    const route = new RegExp(`^/api/messages/(${RECORD_ID_SOURCE})$`);
    expect(route.exec('/api/messages/user_0002')?.[1]).toBe('user_0002');
    expect(route.exec('/api/messages/msgx_0002')).toBeNull();
  });
});

describe('IDs as a person types them (baton show)', () => {
  it('msg_0009, msg_9 and 9 are msg_0009; user_1 is user_0001; anything else is not an ID', () => {
    for (const typed of ['msg_0009', 'msg_9', '9', ' 9 ', 'msg_00009'])
      expect(recordIdOf(typed), typed).toBe('msg_0009');
    expect(recordIdOf('12345')).toBe('msg_12345');
    expect(recordIdOf('user_1')).toBe('user_0001');
    for (const typed of ['', 'msg_', 'm9', '-1', '9a', 'user_', 'msg_9.json'])
      expect(recordIdOf(typed), typed).toBeNull();
  });

  it('a range lists every ID from the first to the last, of one kind', () => {
    expect(recordIdsOf('msg_0004..msg_0006')).toEqual({ ok: true, ids: ['msg_0004', 'msg_0005', 'msg_0006'] });
    expect(recordIdsOf('4..6')).toEqual(recordIdsOf('msg_0004..msg_0006'));
    expect(recordIdsOf('user_1..2')).toEqual({ ok: true, ids: ['user_0001', 'user_0002'] });
    expect(recordIdsOf('msg_7')).toEqual({ ok: true, ids: ['msg_0007'] });
    expect(recordIdsOf('msg_0006..msg_0004')).toMatchObject({ ok: false, why: 'msg_0006 comes after msg_0004' });
    expect(recordIdsOf('msg_0001..user_0002')).toMatchObject({ ok: false });
    expect(recordIdsOf('1..2..3')).toMatchObject({ ok: false });
    expect(recordIdsOf('x..2')).toMatchObject({ ok: false });
  });
});
