/**
 * daemon/availability.ts against a recording typist: an outage is reported once (pane_unavailable, and
 * screen_unknown for a screen baton cannot read), its end once (pane_available), and the agent is looked at
 * again after a backoff that grows to 5 s and starts over after a success. A one-shot answer only says why.
 * An early look started on a hint is used once, only when fresh and only when it found the pane ready.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/config.js';
import { Availability } from '../../../src/daemon/availability.js';
import type { Ready } from '../../../src/terminal/typist.js';
import { log } from '../../../src/lib/log.js';
import { pane, RecordingTypist } from '../../helpers/recording-typist.js';
import { recordingLog } from './fake-delivery-bus.js';

const config = parseConfig(
  {
    agents: {
      a: { kind: 'generic', command: 'x', session: 'sess-a' },
      b: { kind: 'generic', command: 'x', target: 'work:1.2' },
    },
    directions: { a_to_b: ['a', 'b'], b_to_a: ['b', 'a'] },
  },
  '/p/config.json',
  '/p',
  { BATON_HOST: 'here' },
);

function world(quiet = false) {
  const typist = new RecordingTypist();
  const events: Array<{ event: string; fields: Record<string, unknown> | undefined }> = [];
  const wakes: number[] = [];
  const { log: recording, lines } = recordingLog(log);
  const availability = new Availability({
    config,
    typist,
    bus: { events: { emit: async (event, fields) => void events.push({ event, fields }) } },
    log: recording,
    wakeIn: (ms) => void wakes.push(ms),
    oneshot: quiet,
  });
  const down = (reason: string, n = 1) => {
    for (let i = 0; i < n; i++) typist.script.ready.push({ ok: false, reason });
  };
  return { typist, events, wakes, lines, availability, down };
}

describe('a pane that is there', () => {
  it('is handed back as the typist found it, with nothing reported and no retry', async () => {
    const w = world();
    w.typist.script.ready.push({ ok: true, pane: pane('%9') });
    expect(await w.availability.check('a', '[baton] msg_0007 ')).toEqual({ ok: true, pane: pane('%9') });
    expect(w.typist.calls).toEqual([{ step: 'ready', agent: 'a', ours: '[baton] msg_0007 ' }]);
    expect(w.events).toEqual([]);
    expect(w.wakes).toEqual([]);
    expect(w.lines).toEqual([]);
  });
});

describe('an outage', () => {
  it('is reported once, naming the agent, its tmux target and why', async () => {
    const w = world();
    w.down('there is no tmux session "sess-a"', 3);
    for (let i = 0; i < 3; i++) expect((await w.availability.check('a')).ok).toBe(false);
    expect(w.events).toEqual([
      {
        event: 'pane_unavailable',
        fields: { agent: 'a', target: '=sess-a:', reason: 'there is no tmux session "sess-a"' },
      },
    ]);
    expect(w.lines).toEqual(['warn: cannot deliver to a: there is no tmux session "sess-a"; the message waits']);
  });

  it('the agent is looked at again after 250 ms, doubling up to 5 s', async () => {
    const w = world();
    w.down('gone', 8);
    for (let i = 0; i < 8; i++) await w.availability.check('a');
    expect(w.wakes).toEqual([250, 500, 1000, 2000, 4000, 5000, 5000, 5000]);
  });

  it('its end is reported once with the pane, and the backoff starts over', async () => {
    const w = world();
    w.down('gone', 2);
    await w.availability.check('b');
    await w.availability.check('b');
    w.typist.script.ready.push({ ok: true, pane: pane('%4') }, { ok: true, pane: pane('%4') });
    await w.availability.check('b');
    await w.availability.check('b');
    expect(w.events.map((e) => e.event)).toEqual(['pane_unavailable', 'pane_available']);
    expect(w.events[1]!.fields).toEqual({ agent: 'b', target: '=work:1.2', pane: '%4' });
    expect(w.lines.at(-1)).toBe("info: b's pane is back (%4)");
    w.down('gone again');
    await w.availability.check('b');
    expect(w.wakes).toEqual([250, 500, 250]);
    expect(w.events.map((e) => e.event)).toEqual(['pane_unavailable', 'pane_available', 'pane_unavailable']);
  });

  it('a screen baton cannot read, or a dialog, is reported too; a busy or held box is not', async () => {
    const w = world();
    w.typist.script.ready.push({ ok: false, reason: 'r', screen: { state: 'unknown', detail: '$ |' } });
    await w.availability.check('a');
    w.typist.script.ready.push({ ok: false, reason: 'r', screen: { state: 'dialog', detail: 'Trust?' } });
    await w.availability.check('b');
    expect(w.events.filter((e) => e.event === 'screen_unknown').map((e) => e.fields)).toEqual([
      { agent: 'a', state: 'unknown', detail: '$ |' },
      { agent: 'b', state: 'dialog', detail: 'Trust?' },
    ]);
    const v = world();
    v.typist.script.ready.push({ ok: false, reason: 'r', screen: { state: 'holding', busy: false, input: 'hi' } });
    await v.availability.check('a');
    expect(v.events.map((e) => e.event)).toEqual(['pane_unavailable']);
  });

  it('each agent has its own outage and backoff', async () => {
    const w = world();
    w.down('gone', 3);
    await w.availability.check('a');
    await w.availability.check('a');
    await w.availability.check('b');
    expect(w.wakes).toEqual([250, 500, 250]);
    expect(w.events.map((e) => e.fields?.agent)).toEqual(['a', 'b']);
  });
});

describe('the backoff by hand', () => {
  it('a retry asked for counts as a failed attempt; a delivery that went through starts it over', () => {
    const w = world();
    w.availability.retryLater('a');
    w.availability.retryLater('a');
    w.availability.succeeded('a');
    w.availability.retryLater('a');
    expect(w.wakes).toEqual([250, 500, 250]);
  });
});

describe('a one-shot answer (no daemon running)', () => {
  it('only says why: nothing reported, nothing retried', async () => {
    const w = world(true);
    w.typist.script.ready.push({ ok: false, reason: 'gone', screen: { state: 'unknown', detail: 'x' } });
    expect(await w.availability.check('a')).toEqual({
      ok: false,
      reason: 'gone',
      screen: { state: 'unknown', detail: 'x' },
    });
    expect(w.events).toEqual([]);
    expect(w.wakes).toEqual([]);
    expect(w.lines).toEqual([]);
  });
});

describe('an early look (a hint said a message for the agent came)', () => {
  const readies = (w: ReturnType<typeof world>) => w.typist.calls.filter((c) => c.step === 'ready').length;

  it('the check that follows uses it: the pane is looked at once', async () => {
    const w = world();
    w.typist.script.ready.push({ ok: true, pane: pane('%5') });
    w.availability.earlyLook('a');
    w.availability.earlyLook('a'); // a second hint meanwhile asks nothing more
    expect(await w.availability.check('a')).toEqual({ ok: true, pane: pane('%5') });
    expect(readies(w)).toBe(1);
    await w.availability.check('a'); // used once: the next check looks again
    expect(readies(w)).toBe(2);
  });

  it('a pane it found not ready is looked at again, and only that second look is reported', async () => {
    const w = world();
    w.typist.script.ready.push({ ok: false, reason: 'busy' }, { ok: true, pane: pane('%6') });
    w.availability.earlyLook('b');
    expect(await w.availability.check('b')).toEqual({ ok: true, pane: pane('%6') });
    expect(readies(w)).toBe(2);
    expect(w.events).toEqual([]);
  });

  it('is not used when it is older than 25 ms, nor by a check that allows our own text in the box', async () => {
    const w = world();
    w.availability.earlyLook('a');
    await new Promise((r) => setTimeout(r, 60));
    await w.availability.check('a');
    expect(readies(w)).toBe(2);
    w.availability.earlyLook('a'); // stale entries never block a new look
    expect(readies(w)).toBe(3);
    await w.availability.check('a', '[baton] msg_0002 ');
    expect(w.typist.calls.at(-1)).toEqual({ step: 'ready', agent: 'a', ours: '[baton] msg_0002 ' });
    expect(readies(w)).toBe(4);
  });

  it('is not used once something was typed into that pane after it started (a notice, a paste, an Enter)', async () => {
    const w = world();
    // The typing pipeline (pipeline.ts) says so after each keystroke.
    w.typist.script.ready.push({ ok: true, pane: pane('%5') }, { ok: true, pane: pane('%5') });
    w.availability.earlyLook('a');
    w.availability.typed('%5'); // a notice pasted into it
    await w.availability.check('a');
    expect(readies(w)).toBe(2);
    // Typed into another pane: this one's early look stands.
    w.typist.script.ready.push({ ok: true, pane: pane('%5') });
    w.availability.earlyLook('a');
    w.availability.typed('%6'); // an Enter there
    await w.availability.check('a');
    expect(readies(w)).toBe(3);
  });

  it('a look tmux has not answered within 25 ms is not waited for: the check looks again at once', async () => {
    const w = world();
    const slow = new Promise<Ready>(() => {}); // tmux never answers it: waiting for it would hang the check
    const ready = w.typist.ready.bind(w.typist);
    const answers = [slow];
    w.typist.ready = (agent, ours) => answers.shift() ?? ready(agent, ours);
    w.typist.script.ready.push({ ok: true, pane: pane('%fresh') });
    w.availability.earlyLook('a');
    expect(await w.availability.check('a')).toEqual({ ok: true, pane: pane('%fresh') });
  });

  it('an agent the config does not name is ignored', () => {
    const w = world();
    w.availability.earlyLook('nobody');
    expect(w.typist.calls).toEqual([]);
  });
});
