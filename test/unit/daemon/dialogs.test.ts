/**
 * daemon/dialogs.ts against a recording typist whose screens are the real clients' captures: a hook note
 * opens an agent's dialog and nothing is typed into its pane until it closes (the pipeline's gate); the
 * screen shows it and gives its choices; a screen without it closes it (No and Esc fire no hook); only the
 * turn holder's dialog blocks the conversation, with an event each way; the tool-ran hook's flag follows it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Events, TurnState } from '../../../src/bus/bus.js';
import { parseConfig } from '../../../src/config/config.js';
import type { HookNote } from '../../../src/core/hook-note.js';
import type { State } from '../../../src/core/state.js';
import { Availability } from '../../../src/daemon/availability.js';
import { Dialogs, OPEN_LOOK_MS } from '../../../src/daemon/dialogs.js';
import { Pipeline } from '../../../src/daemon/pipeline.js';
import { Underway } from '../../../src/daemon/underway.js';
import { log } from '../../../src/lib/log.js';
import type { AgentDialog } from '../../../src/terminal/hooks/dialog-files.js';
import { ROOT } from '../../helpers/harness.js';
import { pane, RecordingTypist } from '../../helpers/recording-typist.js';
import { fakeDeliveryBus, recordingLog } from './fake-delivery-bus.js';

const config = parseConfig(
  {
    agents: { a: { kind: 'claude', command: 'claude' }, b: { kind: 'claude', command: 'claude' } },
    turns: { policy: 'alternate', timeout_s: 10 },
  },
  '/p/config.json',
  '/p',
  {},
);
const screen = (name: string) =>
  readFileSync(join(ROOT, 'test', 'fixtures', 'screens', 'claude', `${name}.txt`), 'utf8').split('\n');
const READY = ['─'.repeat(80), '❯\u00A0', '─'.repeat(80), '  ? for shortcuts'];
const permission = (agent: string): HookNote => ({
  event: 'permission',
  agent,
  at: new Date().toISOString(),
  payload: { hook_event_name: 'PermissionRequest', tool_name: 'Bash', tool_input: { command: 'echo hi > f.txt' } },
});

function world() {
  let state: State = {
    current_turn: 'a',
    last_message_id: 'msg_0001',
    message_counter: 1,
    pending_reply_to: 'msg_0001',
    turn_started_at: new Date(Date.now() - 1000).toISOString(),
  };
  const events: Array<{ event: string } & Record<string, unknown>> = [];
  const bus: TurnState & Events & { now(): number } = {
    state: () => state,
    update: async (change) => (state = change(state)),
    events: { emit: async (event, fields) => void events.push({ event, ...fields }) },
    now: () => Date.now(),
  };
  const typist = new RecordingTypist();
  const saved: Array<Record<string, AgentDialog>> = [];
  const flags: string[] = [];
  let replanned = 0;
  // Notes written by an agent's hook and not handled yet (a pass hands them over with dialogs.note).
  const spooled: Record<string, HookNote[]> = {};
  const dialogs = new Dialogs({
    config,
    bus,
    typist,
    spool: { notes: async (a) => (spooled[a] ?? []).map((note, i) => ({ name: `${i}.json`, note })) },
    store: { save: async (d) => void saved.push(d), flag: async (a, open) => void flags.push(`${a} ${open}`) },
    log: recordingLog(log).log,
    wakeIn: () => {},
    changed: () => void replanned++,
  });
  const typing = new Pipeline({
    config,
    typist,
    availability: new Availability({
      config,
      typist,
      bus: { events: { emit: async () => {} } },
      log: recordingLog(log).log,
      wakeIn: () => {},
      oneshot: false,
    }),
    underway: new Underway(),
    bus: fakeDeliveryBus({}),
    log: recordingLog(log).log,
    hold: (agent) => dialogs.holdNow(agent),
  });
  // Each agent's screen, as a look now finds it (every agent's input box, unless a test draws a dialog there).
  const screens: Record<string, string[]> = { a: READY, b: READY };
  typist.look = async (agent) => {
    typist.calls.push({ step: 'look', agent: agent.name });
    return { ok: true, pane: pane(), lines: screens[agent.name]! };
  };
  const look = (lines: string[], agent = 'a') => {
    screens[agent] = lines;
  };
  const setState = (change: (s: State) => State) => {
    state = change(state);
  };
  return {
    dialogs,
    spooled,
    typist,
    typing,
    events,
    saved,
    flags,
    look,
    setState,
    state: () => state,
    replanned: () => replanned,
  };
}

const later = () => new Promise((r) => setTimeout(r, OPEN_LOOK_MS + 20));

describe('an agent at a dialog', () => {
  it('the holder: blocked from its hook, nothing typed into its pane, its choices read, then closed by the screen', async () => {
    const w = world();
    w.look(screen('dialog-bash-197'));
    w.dialogs.note('a', permission('a'));
    // A reminder now would answer the dialog: the gate holds it, and nothing reaches the typist.
    const held = await w.typing.notice('a', '[baton] reminder 1/3: a, it is your turn');
    expect(held).toMatch(/^a waits at a dialog for a person \(permission: Bash: echo hi > f\.txt\)/);
    expect(w.typist.calls.filter((c) => c.step === 'paste')).toEqual([]);

    await w.dialogs.run();
    expect(w.state().blocked).toMatchObject({ agent: 'a', kind: 'permission', question: 'Bash: echo hi > f.txt' });
    expect(w.state().blocked?.choices?.map((c) => c.label)).toEqual([
      'Yes',
      'Yes, and always allow access to cwd/ from this project',
      'No',
    ]);
    expect(w.events.map((e) => e.event)).toEqual(['blocked']);
    expect(w.flags).toEqual(['a true']);
    expect(w.saved.at(-1)?.a).toMatchObject({ source: 'hook', kind: 'permission' });
    expect(w.replanned()).toBe(1);

    // "No" (or Esc): no hook at all; its screen shows the input box again.
    w.look(READY);
    await later();
    await w.dialogs.run();
    expect(w.state().blocked).toBeNull();
    expect(w.state().turn_blocked_ms).toBeGreaterThan(0);
    expect(w.events.at(-1)).toMatchObject({ event: 'unblocked', agent: 'a', by: 'screen' });
    expect(w.flags).toEqual(['a true', 'a false']);
    expect(w.saved.at(-1)).toEqual({});
    expect(await w.typing.notice('a', '[baton] reminder 1/3: a, it is your turn')).toBeNull();
    expect(w.typist.calls.filter((c) => c.step === 'paste')).toHaveLength(1);
  });

  it('a dialog whose hook note is not handled yet holds the pane too; a later note that closes it does not', async () => {
    const w = world();
    w.spooled.a = [permission('a')];
    expect(await w.typing.notice('a', '[baton] a reminder')).toBe(
      "a's hook says a dialog opened: nothing is typed into its pane until it is read",
    );
    expect(w.typist.calls).toEqual([]);
    w.spooled.a.push({ event: 'ran', agent: 'a', at: new Date().toISOString(), payload: {} });
    expect(await w.typing.notice('a', '[baton] a reminder')).toBeNull();
  });

  it('a tool-ran hook closes it once its screen no longer shows it', async () => {
    const w = world();
    w.look(screen('dialog-bash-197'));
    w.dialogs.note('a', permission('a'));
    await w.dialogs.run();
    w.look(READY);
    w.dialogs.note('a', { event: 'ran', agent: 'a', at: '', payload: { hook_event_name: 'PostToolUse' } });
    await w.dialogs.run(); // at once: no wait for the next look
    expect(w.state().blocked).toBeNull();
    expect(w.events.at(-1)).toMatchObject({ event: 'unblocked', by: 'hook' });
  });

  it('its tool ran and its turn ended before its screen was redrawn: the hook closed it, not the turn', async () => {
    // The client runs PostToolUse and Stop, then draws; the turn passed on in between (measured: a fast model).
    const w = world();
    w.look(screen('dialog-bash-197'));
    w.dialogs.note('a', permission('a'));
    await w.dialogs.run();
    w.dialogs.note('a', { event: 'ran', agent: 'a', at: '', payload: { hook_event_name: 'PostToolUse' } });
    w.dialogs.note('a', { event: 'stop', agent: 'a', at: '', payload: { hook_event_name: 'Stop' } });
    await w.dialogs.run(); // its screen still shows the dialog
    expect(w.state().blocked).toMatchObject({ agent: 'a' });
    w.setState((s) => ({ ...s, current_turn: 'b' }));
    await w.dialogs.run();
    expect(w.state().blocked ?? null).toBeNull();
    expect(w.events.at(-1)).toMatchObject({ event: 'unblocked', agent: 'a', by: 'hook' });
  });

  it("another tool's hook while the dialog is still drawn closes nothing", async () => {
    const w = world();
    w.look(screen('dialog-bash-197'));
    w.dialogs.note('a', permission('a'));
    await w.dialogs.run();
    w.dialogs.note('a', {
      event: 'ran',
      agent: 'a',
      at: '',
      payload: { hook_event_name: 'PostToolUse', tool_name: 'Read' },
    });
    await w.dialogs.run();
    expect(w.state().blocked).toMatchObject({ agent: 'a' });
    expect(w.events.map((e) => e.event)).toEqual(['blocked']);
  });

  it('a start-up dialog with no hook: the holder’s screen shows it', async () => {
    const w = world();
    w.look(screen('dialog-trust-197'));
    await w.dialogs.run();
    expect(w.state().blocked).toMatchObject({ agent: 'a', kind: 'trust' });
    expect(w.state().blocked?.question).toMatch(/^Accessing workspace: \//);
  });

  it('a non-holder at a dialog is held, shown, and blocks nothing', async () => {
    const w = world();
    w.look(screen('dialog-bash-197'), 'b');
    w.dialogs.note('b', permission('b'));
    await w.dialogs.run();
    expect(w.dialogs.hold('b')).toMatch(/^b waits at a dialog/);
    expect(w.state().blocked ?? null).toBeNull();
    expect(w.events).toEqual([]);
    expect(Object.keys(w.saved.at(-1) ?? {})).toEqual(['b']);
  });

  it('a daemon started while the holder was blocked: its screen says whether it still is', async () => {
    const w = world();
    const blocked = {
      agent: 'a',
      since: new Date(Date.now() - 5000).toISOString(),
      kind: 'permission' as const,
      question: 'q',
    };
    w.setState((s) => ({ ...s, blocked }));
    w.look(READY);
    await w.dialogs.run();
    expect(w.state().blocked).toBeNull();
    expect(w.events.at(-1)).toMatchObject({ event: 'unblocked', agent: 'a', by: 'screen' });
  });
});
