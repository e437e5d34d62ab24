/**
 * daemon/answer.ts against a recording typist whose screens are the real clients' dialogs: the keys that
 * pick the choice go in only while the dialog on the screen is the one offered — a changed or closed one
 * is refused with what is there, nothing typed — and never between a delivery's paste and its Enter.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/config.js';
import { dialogId } from '../../../src/core/dialog.js';
import type { Request } from '../../../src/core/requests.js';
import { answer } from '../../../src/daemon/answer.js';
import type { Stage } from '../../../src/daemon/stage.js';
import { log } from '../../../src/lib/log.js';
import { readDialog } from '../../../src/terminal/dialogs/index.js';
import type { Look } from '../../../src/terminal/typist.js';
import { ROOT } from '../../helpers/harness.js';
import { pane, RecordingTypist } from '../../helpers/recording-typist.js';
import { recordingLog } from './fake-delivery-bus.js';

const config = parseConfig(
  {
    agents: {
      c: { kind: 'claude', command: 'claude' },
      x: { kind: 'codex', command: 'codex' },
      far: { kind: 'gemini', command: 'gemini', host: 'elsewhere' },
    },
    turns: { policy: 'round_robin' },
  },
  '/p/config.json',
  '/p',
  { BATON_HOST: 'here' },
);
const screen = (kind: string, name: string) =>
  readFileSync(join(ROOT, 'test', 'fixtures', 'screens', kind, `${name}.txt`), 'utf8').split('\n');
const idOf = (kind: 'claude' | 'codex', lines: string[]) => {
  const l = readDialog(kind, lines);
  if (l.state !== 'dialog' || !l.dialog) throw new Error('no dialog');
  return dialogId(l.dialog);
};

function world(looks: string[][], deliveringTo: string | null = null) {
  const typist = new RecordingTypist();
  typist.script.look = looks.map((lines): Look => ({ ok: true, pane: pane(), lines }));
  const events: Array<Record<string, unknown>> = [];
  const answered: string[] = [];
  const stage = {
    config,
    keys: typist,
    log: recordingLog(log).log,
    deliveringTo: () => deliveringTo,
    bus: { events: { emit: async (event: string, f?: Record<string, unknown>) => void events.push({ event, ...f }) } },
    answered: (a: string) => void answered.push(a),
  } as unknown as Stage;
  const presses = () => typist.calls.flatMap((c) => (c.step === 'press' ? [c.key] : []));
  return { stage, typist, events, answered, presses };
}

const req = (to: string, choice: string, dialog: string): Extract<Request, { op: 'answer' }> => ({
  op: 'answer',
  to,
  choice,
  dialog,
  by: 'cli',
});

describe('answering a dialog', () => {
  const bash = screen('claude', 'dialog-bash-197');
  const offered = idOf('claude', bash);

  it('the same dialog on the screen: the keys that pick the choice, an event, a look again soon', async () => {
    const w = world([bash]);
    const r = await answer(w.stage, req('c', 'yes', offered));
    expect(r).toMatchObject({ ok: true, message: 'answered c: 1. Yes' });
    expect(w.presses()).toEqual(['1']);
    expect(w.events).toEqual([{ event: 'answered', agent: 'c', choice: 'Yes', n: 1, by: 'cli', dialog: offered }]);
    expect(w.answered).toEqual(['c']);
  });

  it('another dialog there now (another command): refused, saying what it asks, nothing typed', async () => {
    const w = world([bash.map((l) => l.replace('echo hi > f.txt', 'rm -rf build'))]);
    const r = await answer(w.stage, req('c', '1', offered));
    expect(r.ok).toBe(false);
    expect(r.message).toMatch(/not the one offered: it now asks "Bash command \/ rm -rf build/);
    expect(w.presses()).toEqual([]);
    expect(w.events).toEqual([]);
  });

  it('the dialog closed (its input box is back): refused, nothing typed', async () => {
    const w = world([['─'.repeat(80), '❯\u00A0', '─'.repeat(80), '  ? for shortcuts']]);
    const r = await answer(w.stage, req('c', '1', offered));
    expect(r.message).toMatch(/no dialog is open on its screen now \(it has closed\); nothing was typed/);
    expect(w.presses()).toEqual([]);
  });

  it('a delivery to it not yet entered: not now, and the screen is not even read', async () => {
    const w = world([bash], 'c');
    const r = await answer(w.stage, req('c', '1', offered));
    expect(r.message).toMatch(/^not now: a message to c is still being delivered/);
    expect(w.typist.calls).toEqual([]);
  });

  it('Codex: its approval by the letter it shows; its start-up dialog by a digit, then Enter once the cursor is there', async () => {
    const esc = screen('codex', 'dialog-escalation');
    const w = world([esc]);
    expect((await answer(w.stage, req('x', 'no', idOf('codex', esc)))).ok).toBe(true);
    expect(w.presses()).toEqual(['Escape']);

    const trust = screen('codex', 'hooks-review');
    const moved = trust.map((l) =>
      l.replace('› 1. Review hooks', '  1. Review hooks').replace('  2. Trust all', '› 2. Trust all'),
    );
    const t = world([trust, moved]);
    expect((await answer(t.stage, req('x', '2', idOf('codex', trust)))).ok).toBe(true);
    expect(t.presses()).toEqual(['2', 'Enter']);
  });

  it('Codex start-up dialog whose cursor did not follow the digit: no Enter', async () => {
    const trust = screen('codex', 'hooks-review');
    const t = world([trust]);
    const r = await answer(t.stage, req('x', '2', idOf('codex', trust)));
    expect(r.ok).toBe(false);
    expect(r.message).toMatch(/its cursor is on 1, not 2/);
    expect(t.presses()).toEqual(['2']);
  }, 10_000);

  it('keys that only move a cursor: each next one only into the same dialog', async () => {
    const three = screen('claude', 'dialog-auto-approval-332').flatMap((l) =>
      /^\s+Yes$/.test(l) ? [l, "   Yes, and don't ask again"] : [l],
    );
    const other = three.map((l) => l.replace('Do you want to proceed?', 'Do you want to delete it?'));
    const w = world([three, other]);
    const r = await answer(w.stage, req('c', '3', idOf('claude', three)));
    expect(r.ok).toBe(false);
    expect(r.message).toMatch(/^not answered: after 1 key\(s\) the dialog on its screen is not the one offered/);
    expect(w.presses()).toEqual(['Down']);
    expect(w.events).toEqual([]);
  });

  it('closed before its confirming Enter (the arrows cannot close it): not reported as answered', async () => {
    const key = screen('claude', 'dialog-api-key-332');
    const w = world([key, ['─'.repeat(80), '❯\u00A0', '─'.repeat(80), '  ? for shortcuts']]);
    const r = await answer(w.stage, req('c', '1', idOf('claude', key)));
    expect(r.ok).toBe(false);
    expect(r.message).toMatch(
      /dialog closed before baton pressed Enter: the keys before it only move a cursor, so something else closed it/,
    );
    expect(w.presses()).toEqual(['Up']);
    expect(w.events).toEqual([]);
    expect(w.answered).toEqual(['c']);
  });

  it('an agent of another machine, or one with no such choice: refused', async () => {
    const w = world([bash]);
    expect((await answer(w.stage, req('far', '1', offered))).message).toMatch(/not an agent of this machine/);
    expect((await answer(w.stage, req('c', '9', offered))).message).toMatch(/there is no choice 9/);
    expect(w.presses()).toEqual([]);
  });
});
