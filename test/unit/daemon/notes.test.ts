/**
 * daemon/notes.ts through the typing pipeline, against a recording typist: a note whose typing began before
 * and was never confirmed (a daemon killed between its paste and its Enter) is typed again flagged — after the
 * pipeline's look at what that paste left, as for a message: a pane baton cannot see gets an Enter alone
 * first, so the two copies never go in one submit.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/config.js';
import { type ArchiveRecord, personRecord } from '../../../src/core/record.js';
import { Availability } from '../../../src/daemon/availability.js';
import { PersonRecords } from '../../../src/daemon/catch-up.js';
import { Notes } from '../../../src/daemon/notes.js';
import { Pipeline } from '../../../src/daemon/pipeline.js';
import { Underway } from '../../../src/daemon/underway.js';
import { log } from '../../../src/lib/log.js';
import { RecordingTypist } from '../../helpers/recording-typist.js';
import { fakeDeliveryBus, recordingLog } from './fake-delivery-bus.js';

const config = parseConfig(
  {
    agents: { a: { kind: 'generic', command: 'x' }, b: { kind: 'generic', command: 'x' } },
    directions: { a_to_b: ['a', 'b'], b_to_a: ['b', 'a'] },
  },
  '/p/config.json',
  '/p',
  { BATON_HOST: 'here' },
);

function world(note: ArchiveRecord) {
  const typist = new RecordingTypist();
  let record = note;
  const bus = fakeDeliveryBus({
    events: { emit: async () => {} },
    record: async () => record,
    amend: async (_id, fields) => {
      record = { ...record, deliveries: { ...record.deliveries, ...fields.deliveries } } as ArchiveRecord;
      return true;
    },
    stamp: async (r) => void (record = { ...record, delivered_at: r.delivered_at }),
    state: () => ({ current_turn: 'a' }) as ReturnType<ReturnType<typeof fakeDeliveryBus>['state']>,
  });
  const quiet = recordingLog(log).log;
  const availability = new Availability({
    config,
    typist,
    bus: { events: bus.events },
    log: quiet,
    wakeIn: () => {},
    oneshot: false,
  });
  const typing = new Pipeline({ config, typist, availability, underway: new Underway(), bus, log: quiet });
  const notes = new Notes({
    config,
    bus,
    typing,
    log: quiet,
    people: new PersonRecords(bus, config.order),
    oneshot: false,
  });
  return { typist, notes, record: () => record };
}

describe('a note to all', () => {
  const note = personRecord({
    id: 'user_0003',
    to: 'all',
    content: 'stop at the end of this round',
    type: 'message',
    request: 'r1',
    receivedAt: '2026-01-01T00:00:00.000Z',
  });

  it('typed once into a pane: one paste, one Enter', async () => {
    const w = world(note);
    expect((await w.notes.forwarded('user_0003', 'b')).ok).toBe(true);
    expect(w.typist.steps()).toEqual(['ready', 'paste [baton] user_0003 from user', 'landed', 'enter', 'confirm']);
    expect(w.record().deliveries?.b).toMatchObject({ confirmed: 'not_checked' });
  });

  it('begun before and never confirmed: Enter alone first, then the flagged copy', async () => {
    const w = world({ ...note, deliveries: { b: { at: null } } });
    expect((await w.notes.forwarded('user_0003', 'b')).ok).toBe(true);
    expect(w.typist.steps()).toEqual([
      'ready',
      'box',
      'enter',
      'paste [baton] user_0003 from user (redelivered)',
      'landed',
      'enter',
      'confirm',
    ]);
    expect(w.typist.calls[2]).toEqual({ step: 'enter', pane: '%1', alone: true });
    // The look let its own paste in the box through the gate (a box baton reads would show it).
    expect(w.typist.calls[0]).toMatchObject({ step: 'ready', ours: '[baton] user_0003 ' });
  });
});
