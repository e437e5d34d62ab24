/**
 * daemon/notice.ts: text of baton's own typed into an agent's pane — all at once, with the agent's Enter
 * delay — or handed to the daemon of the machine that runs the agent. Against a recording typist and a bus
 * that only forwards.
 */
import { describe, expect, it } from 'vitest';
import type { Agent } from '../../../src/config/config.js';
import { parseConfig } from '../../../src/config/config.js';
import type { Confirmation } from '../../../src/core/record.js';
import type { Request } from '../../../src/core/requests.js';
import { Availability } from '../../../src/daemon/availability.js';
import { typeNotice } from '../../../src/daemon/notice.js';
import { log } from '../../../src/lib/log.js';
import type { PaneInfo } from '../../../src/terminal/pane.js';
import type { Typed } from '../../../src/terminal/typist.js';
import { pane, RecordingTypist } from '../../helpers/recording-typist.js';
import { fakeDeliveryBus, recordingLog } from './fake-delivery-bus.js';

const config = parseConfig(
  {
    agents: {
      here: { kind: 'gemini', command: 'gemini' },
      slow: { kind: 'claude', command: 'claude' },
      far: { kind: 'claude', command: 'claude', host: 'other-machine' },
    },
    directions: { h_to_s: ['here', 'slow'], s_to_f: ['slow', 'far'], f_to_h: ['far', 'here'] },
    turns: { policy: 'round_robin' },
  },
  '/p/config.json',
  '/p',
  { BATON_HOST: 'this-machine' },
);

/** Records the delay each notice was typed with, and answers `result` (ok unless a test says otherwise). */
class NoticeTypist extends RecordingTypist {
  readonly delays: Array<number | undefined> = [];
  result: Typed<Confirmation> = { ok: true, value: 'screen' };

  override async type(agent: Agent, p: PaneInfo, text: string, delayMs?: number): Promise<Typed<Confirmation>> {
    await super.type(agent, p, text);
    this.delays.push(delayMs);
    return this.result;
  }
}

function world() {
  const typist = new NoticeTypist(75);
  const forwarded: Request[] = [];
  const bus = fakeDeliveryBus({ forward: async (r) => void forwarded.push(r) });
  const availability = new Availability({
    config,
    typist,
    events: { emit: async () => {} },
    log: recordingLog(log).log,
    wakeIn: () => {},
    quiet: false,
  });
  return {
    typist,
    forwarded,
    notice: (agent: string, text: string) => typeNotice({ config, bus, availability, typist }, agent, text),
  };
}

describe('a notice for an agent on this machine', () => {
  it('is typed whole into its pane, with the Enter delay the typist gives for it', async () => {
    const w = world();
    w.typist.script.ready.push({ ok: true, pane: pane('%5') });
    expect(await w.notice('here', '[baton] reminder: it is your turn')).toBeNull();
    expect(w.typist.calls).toEqual([
      { step: 'ready', agent: 'here', ours: undefined },
      { step: 'type', pane: '%5', text: '[baton] reminder: it is your turn' },
    ]);
    expect(w.typist.delays).toEqual([75]);
    expect(w.forwarded).toEqual([]);
  });

  it('a pane that is not ready says why, and nothing is typed', async () => {
    const w = world();
    w.typist.script.ready.push({ ok: false, reason: 'its input box holds text' });
    expect(await w.notice('slow', 'x')).toBe('its input box holds text');
    expect(w.typist.calls.map((c) => c.step)).toEqual(['ready']);
  });

  it('typing that failed says how', async () => {
    const w = world();
    w.typist.result = { ok: false, error: 'the paste timed out', maybeTyped: true };
    expect(await w.notice('slow', 'x')).toBe('the paste timed out');
  });
});

describe("a notice for another machine's agent", () => {
  it("goes to that machine's daemon as a request, and nothing is typed here", async () => {
    const w = world();
    expect(await w.notice('far', '[baton] the conversation is paused')).toBeNull();
    expect(w.forwarded).toEqual([{ op: 'notice', to: 'far', text: '[baton] the conversation is paused' }]);
    expect(w.typist.calls).toEqual([]);
  });
});
