/**
 * Blocked on a person, as pure decisions (core/blocked.ts, core/dialog.ts, core/dialog-hooks.ts): when an
 * agent's dialog opens and closes by what its hooks and its screen say, when the conversation is blocked,
 * how the turn clock stands still meanwhile, which choice a person's CHOICE names, and whether the dialog
 * on the screen is still the one that was offered.
 */
import { describe, expect, it } from 'vitest';
import {
  type BlockState,
  blockedOf,
  hookOpened,
  OPEN_GRACE_MS,
  screenSaw,
  withBlocked,
} from '../../../src/core/blocked.js';
import { durationEndsAt, nudgePlan, turnTaken } from '../../../src/core/conversation.js';
import { type Choice, dialogId, pickChoice, sameAsOffered, type ScreenDialog } from '../../../src/core/dialog.js';
import { closesDialog, dialogFromHook } from '../../../src/core/dialog-hooks.js';
import type { HookNote } from '../../../src/core/hook-note.js';
import { noLimits } from '../records.js';

const T0 = Date.parse('2026-11-28T10:00:00Z');
const at = (s: number) => ({ iso: new Date(T0 + s * 1000).toISOString(), ms: T0 + s * 1000 });

const bash: ScreenDialog = {
  kind: 'permission',
  lines: ['Bash command', 'echo hi > f.txt', 'Do you want to proceed?'],
  choices: [
    { n: 1, label: 'Yes' },
    { n: 2, label: 'Yes, and always allow access to cwd/ from this project' },
    { n: 3, label: 'No' },
  ],
  selected: 1,
  numbered: true,
};
const asked = { kind: 'permission' as const, question: 'Bash: echo hi > f.txt' };

describe('an agent’s dialog: opened by a hook or the screen, closed by the screen or a hook', () => {
  it('a hook opens it before it is drawn: a screen without it right after is not a close', () => {
    const d = hookOpened(null, at(0), asked);
    expect(d).toMatchObject({ source: 'hook', seen: false, question: asked.question });
    expect(screenSaw(d, { state: 'none' }, at(0.8))).toBe(d);
    // Never drawn within the grace period (answered at once, or it never came): closed.
    expect(screenSaw(d, { state: 'none' }, at(OPEN_GRACE_MS / 1000))).toBeNull();
  });

  it('once the screen has shown it, a screen without it is a close (No and Esc fire no hook)', () => {
    const seen = screenSaw(hookOpened(null, at(0), asked), { state: 'dialog', dialog: bash }, at(0.3))!;
    expect(seen).toMatchObject({ seen: true, question: asked.question, choices: bash.choices, id: dialogId(bash) });
    expect(screenSaw(seen, { state: 'none' }, at(0.7))).toBeNull();
  });

  it('a screen baton cannot read changes nothing', () => {
    const seen = screenSaw(null, { state: 'dialog', dialog: bash }, at(0))!;
    expect(screenSaw(seen, { state: 'unknown' }, at(60))).toBe(seen);
  });

  it('the screen alone opens one (start-up dialogs fire no hook), asking what its own lines say', () => {
    const d = screenSaw(null, { state: 'dialog', dialog: bash }, at(0))!;
    expect(d).toMatchObject({ source: 'screen', seen: true, kind: 'permission' });
    expect(d.question).toBe('Bash command / echo hi > f.txt / Do you want to proceed?');
    const unread = screenSaw(null, { state: 'dialog', dialog: null }, at(0));
    expect(unread).toMatchObject({ kind: 'other', question: 'a dialog baton cannot read' });
    expect(unread).not.toHaveProperty('choices');
  });

  it("the hook's question goes to the dialog drawn after it; a next one with no hook of its own asks its own lines", () => {
    const first = screenSaw(hookOpened(null, at(0), asked), { state: 'dialog', dialog: bash }, at(0.3))!;
    const again = screenSaw(first, { state: 'dialog', dialog: bash }, at(1))!;
    expect(again.question).toBe(asked.question);
    const next = { ...bash, lines: ['Bash command', 'rm x', 'Do you want to proceed?'] };
    expect(screenSaw(again, { state: 'dialog', dialog: next }, at(2))!.question).toBe(
      'Bash command / rm x / Do you want to proceed?',
    );
  });

  it('a hook that only says some dialog waits (vague) gives way to what the screen shows it asks', () => {
    // Gemini CLI's ask_user Notification says "Ask User", Claude Code's late one "Claude needs your permission".
    const vague = { kind: 'question' as const, question: 'Ask User', vague: true };
    const color: ScreenDialog = {
      kind: 'question',
      lines: ['Answer Questions', 'Which color should we use?'],
      choices: [
        { n: 1, label: 'Red' },
        { n: 2, label: 'Blue' },
      ],
      selected: 1,
      numbered: true,
    };
    const opened = hookOpened(null, at(0), vague);
    expect(opened.question).toBe('Ask User');
    const seen = screenSaw(opened, { state: 'dialog', dialog: color }, at(0.2))!;
    expect(seen).toMatchObject({
      source: 'hook',
      kind: 'question',
      question: 'Answer Questions / Which color should we use?',
    });
    // A precise hook keeps its own words.
    expect(screenSaw(hookOpened(null, at(0), asked), { state: 'dialog', dialog: bash }, at(0.3))!.question).toBe(
      asked.question,
    );
  });

  it('only the turn holder’s dialog blocks the conversation', () => {
    const d = screenSaw(null, { state: 'dialog', dialog: bash }, at(0))!;
    expect(blockedOf('a', d)).toMatchObject({ agent: 'a', kind: 'permission', dialog: dialogId(bash) });
    expect(blockedOf('a', undefined)).toBeNull();
  });
});

describe('the turn clock stands still while the holder is blocked', () => {
  const rules = { ...noLimits(), timeout_s: 10, max_nudges: 3, max_duration_s: 100 };
  const start = new Date(T0).toISOString();
  const base: BlockState & { message_counter: number } = {
    message_counter: 1,
    turn_started_at: start,
    started_at: start,
  };
  const blocked = { agent: 'a', since: at(5).iso, kind: 'permission' as const, question: 'q' };

  it('nothing is due while blocked: no reminder, no end by max_duration_s', () => {
    expect(nudgePlan({ ...base, blocked }, at(50).ms, rules)).toEqual({ action: 'none', at: null });
    expect(durationEndsAt({ ...base, blocked }, rules)).toBeNull();
  });

  it('the time it lasted counts for nothing: the reminder and the end come that much later', () => {
    const { state, changes } = withBlocked({ ...base, blocked }, null, at(35).ms);
    expect(changes).toEqual([{ kind: 'unblocked', was: blocked, after_ms: 30_000 }]);
    expect(state).toMatchObject({ blocked: null, blocked_ms: 30_000, turn_blocked_ms: 30_000 });
    expect(nudgePlan(state, at(39).ms, rules)).toEqual({ action: 'none', at: at(40).ms });
    expect(nudgePlan(state, at(40).ms, rules)).toEqual({ action: 'nudge', n: 1 });
    expect(durationEndsAt(state, rules)).toBe(at(130).ms);
  });

  it('a new turn starts its own count; the run’s goes on', () => {
    const { state } = withBlocked({ ...base, blocked }, null, at(35).ms);
    const next = turnTaken(state, { current_turn: 'b' }, at(40).iso);
    expect(next).toMatchObject({ turn_blocked_ms: 0, blocked_ms: 30_000 });
    expect(turnTaken(base, { current_turn: 'b' }, at(40).iso)).not.toHaveProperty('turn_blocked_ms');
  });

  it('a block that began before the turn (a resume restarted it) counts only from the turn’s start', () => {
    const s = { ...base, turn_started_at: at(20).iso, blocked };
    expect(withBlocked(s, null, at(35).ms).state).toMatchObject({ turn_blocked_ms: 15_000, blocked_ms: 30_000 });
  });

  it('blocked, changed (choices read), the same: one event each at most', () => {
    const open = withBlocked(base, blocked, at(5).ms);
    expect(open.changes).toEqual([{ kind: 'blocked', blocked }]);
    const read = withBlocked(open.state, { ...blocked, since: at(6).iso, choices: bash.choices }, at(6).ms);
    expect(read.changes.map((c) => c.kind)).toEqual(['changed']);
    expect(read.state.blocked?.since).toBe(blocked.since); // it began when it began
    expect(withBlocked(read.state, read.state.blocked!, at(7).ms).changes).toEqual([]);
  });
});

describe('which choice a CHOICE names', () => {
  const choices: Choice[] = [
    { n: 1, label: 'Yes, proceed (y)' },
    { n: 2, label: "Yes, and don't ask again for commands that start with `touch` (p)" },
    { n: 3, label: 'No, and tell Codex what to do differently (esc)' },
  ];
  const pick = (c: Choice[], s: string) => {
    const r = pickChoice(c, s);
    return r.ok ? r.choice.n : r.why;
  };

  it('the number shown, yes / no, a unique prefix, the label whole (case and key hint aside)', () => {
    expect(pick(choices, '2')).toBe(2);
    expect(pick(choices, 'yes')).toBe(1);
    expect(pick(choices, 'NO')).toBe(3);
    expect(pick(choices, 'yes, and')).toBe(2);
    expect(pick(choices, 'yes, proceed')).toBe(1);
    expect(
      pick(
        [
          { n: 1, label: 'Red' },
          { n: 2, label: 'Red wine' },
        ],
        'red',
      ),
    ).toBe(1);
    expect(
      pick(
        [
          { n: 1, label: 'Allow once' },
          { n: 2, label: "Don't trust" },
        ],
        'no',
      ),
    ).toBe(2);
    expect(
      pick(
        [
          { n: 1, label: 'No' },
          { n: 2, label: 'Yes' },
        ],
        'yes',
      ),
    ).toBe(2);
  });

  it('says why when it names none, or several', () => {
    expect(pick(choices, '4')).toMatch(/^there is no choice 4 \(choices: 1\. Yes, proceed/);
    expect(pick(choices, 'Ye')).toMatch(/fits 2 choices/);
    expect(pick(choices, 'maybe')).toMatch(/no choice starts with "maybe"/);
    expect(pick([{ n: 1, label: 'Red' }], 'yes')).toMatch(/no choice reads as "yes"/);
    expect(pick(choices, ' ')).toMatch(/^no choice given/);
  });
});

describe('the dialog on the screen against the one offered', () => {
  it('the same words: the same dialog, wherever the cursor is', () => {
    expect(sameAsOffered(dialogId(bash), { ...bash, selected: 3 })).toBeNull();
  });
  it('another command, other choices, or none: refused, saying what is there now', () => {
    const other = { ...bash, lines: ['Bash command', 'rm -rf build', 'Do you want to proceed?'] };
    expect(sameAsOffered(dialogId(bash), other)).toMatch(
      /not the one offered: it now asks "Bash command \/ rm -rf build/,
    );
    expect(sameAsOffered(dialogId(bash), { ...bash, choices: bash.choices.slice(0, 2) })).toMatch(
      /not the one offered/,
    );
    expect(sameAsOffered(dialogId(bash), null)).toMatch(/no dialog is open/);
  });
});

describe('what a hook note says of a dialog', () => {
  const note = (payload: Record<string, unknown>, event: HookNote['event'] = 'permission'): HookNote => ({
    event,
    agent: 'a',
    at: '',
    payload,
  });
  it('Claude Code: the tool and its input; AskUserQuestion its questions; the late Notification is vague', () => {
    expect(
      dialogFromHook(
        'claude',
        note({
          hook_event_name: 'PermissionRequest',
          tool_name: 'Bash',
          tool_input: { command: 'echo hi > f.txt', description: 'Write hi' },
        }),
      ),
    ).toEqual({ kind: 'permission', question: 'Bash: echo hi > f.txt (Write hi)', vague: false });
    expect(
      dialogFromHook(
        'claude',
        note({
          hook_event_name: 'PermissionRequest',
          tool_name: 'AskUserQuestion',
          tool_input: { questions: [{ question: 'Which color should we use?', options: [] }] },
        }),
      ),
    ).toEqual({ kind: 'question', question: 'Which color should we use?', vague: false });
    expect(
      dialogFromHook(
        'claude',
        note({
          hook_event_name: 'Notification',
          notification_type: 'permission_prompt',
          message: 'Claude needs your permission',
        }),
      ),
    ).toEqual({ kind: 'permission', question: 'Claude needs your permission', vague: true });
    expect(
      dialogFromHook('claude', note({ hook_event_name: 'Notification', notification_type: 'idle_prompt' })),
    ).toBeNull();
  });
  it('Codex: the command and its justification', () => {
    expect(
      dialogFromHook(
        'codex',
        note({
          hook_event_name: 'PermissionRequest',
          tool_name: 'Bash',
          tool_input: { command: 'ls -la', description: 'outside the sandbox?' },
        }),
      ),
    ).toEqual({ kind: 'permission', question: 'Bash: ls -la (outside the sandbox?)', vague: false });
  });
  it('Gemini CLI: ToolPermission exec, edit, ask_user; any other notification is none', () => {
    const g = (details: object) =>
      dialogFromHook('gemini', note({ hook_event_name: 'Notification', notification_type: 'ToolPermission', details }));
    expect(g({ type: 'exec', command: 'echo hi > f.txt' })).toMatchObject({ question: 'Shell: echo hi > f.txt' });
    expect(g({ type: 'edit', fileName: 'w1.txt' })).toMatchObject({ kind: 'permission', question: 'Edit: w1.txt' });
    // It names no question (details: {type, title}): its screen says what it asks.
    expect(g({ type: 'ask_user', title: 'Ask User' })).toMatchObject({ kind: 'question', vague: true });
    expect(dialogFromHook('gemini', note({ hook_event_name: 'Notification', notification_type: 'Other' }))).toBeNull();
  });
  it('a tool ran, a prompt, a turn’s end: the dialog (if any) closed; a dialog note does not', () => {
    expect(closesDialog(note({}, 'ran'))).toBe(true);
    expect(closesDialog(note({}, 'prompt'))).toBe(true);
    expect(closesDialog(note({}, 'stop'))).toBe(true);
    expect(closesDialog(note({}, 'permission'))).toBe(false);
  });
});
