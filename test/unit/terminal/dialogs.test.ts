/**
 * The dialog readers against the dialogs of the real clients (Claude Code 2.1.197 / 2.1.332, Codex 0.169.0,
 * Gemini CLI 0.61.0) as their screens showed them, verbatim (test/fixtures/screens/<kind>/dialog-*.txt, and
 * the start-up dialogs captured with colours beside them): what each asks, its choices as listed, where the
 * cursor is, and the keys that pick "yes" and "no" there — the measured table of docs/protocol.md §12.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentKind } from '../../../src/config/config.js';
import { dialogId, pickChoice, type ScreenDialog } from '../../../src/core/dialog.js';
import { keysFor, readDialog } from '../../../src/terminal/dialogs/index.js';
import { ROOT } from '../../helpers/harness.js';

const lines = (kind: string, name: string): string[] =>
  readFileSync(join(ROOT, 'test', 'fixtures', 'screens', kind, `${name}.txt`), 'utf8').split('\n');

function dialog(kind: AgentKind, name: string): ScreenDialog {
  const look = readDialog(kind, lines(kind, name));
  if (look.state !== 'dialog' || !look.dialog) throw new Error(`${kind}/${name}: ${JSON.stringify(look)}`);
  return look.dialog;
}

interface Want {
  kind: ScreenDialog['kind'];
  /** The first and last of its own lines. */
  first: string;
  last: string;
  labels: string[];
  selected: number;
  /** The keys "yes" and "no" press (then Enter where the plan has one). */
  yes: string[];
  no: string[];
}

const TABLE: Record<string, [AgentKind, string, Want]> = {
  'Claude 2.1.197 Bash': [
    'claude',
    'dialog-bash-197',
    {
      kind: 'permission',
      first: 'Bash command',
      last: 'Do you want to proceed?',
      labels: ['Yes', 'Yes, and always allow access to cwd/ from this project', 'No'],
      selected: 1,
      yes: ['1'],
      no: ['3'],
    },
  ],
  'Claude 2.1.332 Bash (No is 4)': [
    'claude',
    'dialog-bash-332',
    {
      kind: 'permission',
      first: 'Bash command',
      last: 'Do you want to proceed?',
      labels: [
        'Yes',
        'Yes, and always allow access to /work/wt/research/scratch/runs/c332b/cwd from this project',
        'Yes, and switch to auto mode · auto mode handles these prompts for you',
        'No',
      ],
      selected: 1,
      yes: ['1'],
      no: ['4'],
    },
  ],
  'Claude Write': [
    'claude',
    'dialog-write-197',
    {
      kind: 'permission',
      first: 'Create file',
      last: 'Do you want to create w.txt?',
      labels: ['Yes', 'Yes, allow all edits during this session (shift+tab)', 'No'],
      selected: 1,
      yes: ['1'],
      no: ['3'],
    },
  ],
  'Claude AskUserQuestion': [
    'claude',
    'dialog-ask-question',
    {
      kind: 'question',
      first: '☐ Color',
      last: 'Which color should we use?',
      labels: ['Red', 'Blue', 'Type something.', 'Chat about this'],
      selected: 1,
      yes: [],
      no: [],
    },
  ],
  'Claude folder trust (2.1.197)': [
    'claude',
    'dialog-trust-197',
    {
      kind: 'trust',
      first: 'Accessing workspace:',
      last: 'Security guide',
      labels: ['Yes, I trust this folder', 'No, exit'],
      selected: 1,
      yes: ['1'],
      no: ['2'],
    },
  ],
  'Claude API key (2.1.197)': [
    'claude',
    'dialog-api-key-197',
    {
      kind: 'login',
      first: 'Detected a custom API key in your environment',
      last: 'Do you want to use this API key?',
      labels: ['Yes', 'No (recommended)'],
      selected: 2,
      yes: ['1'],
      no: ['2'],
    },
  ],
  'Claude API key (2.1.332, unnumbered: arrows, then Enter)': [
    'claude',
    'dialog-api-key-332',
    {
      kind: 'login',
      first: 'Detected a custom API key in your environment',
      last: 'Do you want to use this API key?',
      labels: ['Yes', 'No (recommended)'],
      selected: 2,
      yes: ['Up', 'Enter'],
      no: ['Enter'],
    },
  ],
  'Claude auto mode approval (2.1.332, unnumbered, No first)': [
    'claude',
    'dialog-auto-approval-332',
    {
      kind: 'permission',
      first: "Auto mode can't check actions in this session, so this one needs your approval",
      last: 'Do you want to proceed?',
      labels: ['No', 'Yes'],
      selected: 1,
      yes: ['Down', 'Enter'],
      no: ['Enter'],
    },
  ],
  'Codex escalation': [
    'codex',
    'dialog-escalation',
    {
      kind: 'permission',
      first: 'Would you like to run the following command?',
      last: '$ echo hi > /tmp/research/x2/outside.txt',
      labels: [
        'Yes, proceed (y)',
        "Yes, and don't ask again for commands that start with `echo hi > /tmp/research/x2/outside.txt` (p)",
        'No, and tell Codex what to do differently (esc)',
      ],
      selected: 1,
      yes: ['y'],
      no: ['Escape'],
    },
  ],
  'Codex exec-policy prompt (No is 2)': [
    'codex',
    'dialog-policy-prompt',
    {
      kind: 'permission',
      first: 'Would you like to run the following command?',
      last: '$ ls -la',
      labels: ['Yes, proceed (y)', 'No, and tell Codex what to do differently (esc)'],
      selected: 1,
      yes: ['y'],
      no: ['Escape'],
    },
  ],
  'Codex request_user_input': [
    'codex',
    'dialog-question',
    {
      kind: 'question',
      first: 'Question 1/1 (1 unanswered)',
      last: 'Which color should we use?',
      labels: [
        'Red (Recommended)  A warm color',
        'Blue               A cool color',
        'None of the above  Optionally, add details in notes (tab)',
      ],
      selected: 1,
      yes: [],
      no: [],
    },
  ],
  'Codex folder trust (a digit moves, Enter picks)': [
    'codex',
    'trust-folder-dialog',
    {
      kind: 'trust',
      first: 'Folder access',
      last: 'trust these files. Your trust decision will be saved.',
      labels: ['Trust and continue', 'Back to Agent Command Center'],
      selected: 1,
      yes: ['1', 'Enter'],
      no: [],
    },
  ],
  'Codex hooks review': [
    'codex',
    'hooks-review',
    {
      kind: 'trust',
      first: 'Hooks need review',
      last: 'Hooks can run outside the sandbox after you trust them.',
      labels: ['Review hooks', 'Trust all and continue', "Continue without trusting (hooks won't run)"],
      selected: 1,
      yes: [],
      no: [],
    },
  ],
  'Gemini shell': [
    'gemini',
    'dialog-shell',
    {
      kind: 'permission',
      first: '? Shell  echo hi > f.txt',
      last: 'Redirection detected. To auto-accept, press Shift+Tab',
      labels: ['Allow once', 'Allow for this session', 'No, suggest changes (esc)'],
      selected: 1,
      yes: ['1'],
      no: ['3'],
    },
  ],
  'Gemini shell (captured with colours)': [
    'gemini',
    'shell-approval',
    {
      kind: 'permission',
      first: '? Shell  baton post -- approval-test',
      last: 'Allow execution of [Shell]?',
      labels: ['Allow once', 'Allow for this session', 'No, suggest changes (esc)'],
      selected: 1,
      yes: ['1'],
      no: ['3'],
    },
  ],
  'Gemini edit (No is 4)': [
    'gemini',
    'dialog-write',
    {
      kind: 'permission',
      first: '? WriteFile  Writing to w1.txt',
      last: 'Apply this change?',
      labels: ['Allow once', 'Allow for this session', 'Modify with external editor', 'No, suggest changes (esc)'],
      selected: 1,
      yes: ['1'],
      no: ['4'],
    },
  ],
  'Gemini ask_user': [
    'gemini',
    'dialog-ask-user',
    {
      kind: 'question',
      first: 'Answer Questions',
      last: 'Which color should we use?',
      labels: ['Red', 'Blue', 'Enter a custom value'],
      selected: 1,
      yes: [],
      no: [],
    },
  ],
  'Gemini folder trust': [
    'gemini',
    'trust-dialog',
    {
      kind: 'trust',
      first: 'Do you trust the files in this folder?',
      last: 'behalf or change the behavior of the CLI.',
      labels: ['Trust folder (untrusted)', 'Trust parent folder (lab-gemini)', "Don't trust"],
      selected: 1,
      yes: ['1'],
      no: ['3'],
    },
  ],
  'Gemini loop detected': [
    'gemini',
    'loop-detected-dialog',
    {
      kind: 'other',
      first: '?  A potential loop was detected',
      last: 'This can happen due to repetitive tool calls or other model behavior. Do you want to keep loop detection enabled or disable it for this session?',
      labels: ['Keep loop detection enabled (esc)', 'Disable loop detection for this session'],
      selected: 1,
      yes: [],
      no: [],
    },
  ],
};

const keys = (kind: AgentKind, d: ScreenDialog, input: string): string[] => {
  const picked = pickChoice(d.choices, input);
  if (!picked.ok) throw new Error(picked.why);
  const k = keysFor(kind, d, picked.choice);
  if (!k.ok) throw new Error(k.why);
  return [...k.plan.select, ...(k.plan.confirm ? [k.plan.confirm] : [])];
};

describe('reading a dialog off the screen, and the keys that answer it', () => {
  for (const [title, [kind, name, want]] of Object.entries(TABLE)) {
    it(title, () => {
      const d = dialog(kind, name);
      expect(d.kind).toBe(want.kind);
      expect(d.lines[0]).toBe(want.first);
      expect(d.lines.at(-1)).toBe(want.last);
      expect(d.choices.map((c) => c.label)).toEqual(want.labels);
      expect(d.choices.map((c) => c.n)).toEqual(want.labels.map((_, i) => i + 1));
      expect(d.selected).toBe(want.selected);
      if (want.yes.length) expect(keys(kind, d, 'yes')).toEqual(want.yes);
      if (want.no.length) expect(keys(kind, d, 'no')).toEqual(want.no);
    });
  }

  it('a digit picks the choice it numbers, and only that key is pressed', () => {
    const d = dialog('claude', 'dialog-bash-197');
    expect(keys('claude', d, '2')).toEqual(['2']);
    expect(keys('gemini', dialog('gemini', 'dialog-ask-user'), '2')).toEqual(['2']);
    expect(keys('codex', dialog('codex', 'dialog-question'), 'blue')).toEqual(['2']);
    expect(keys('codex', dialog('codex', 'dialog-escalation'), '2')).toEqual(['p']);
  });

  it('the transcript around a dialog is not part of it: the tool line above the rule, the footer below', () => {
    const d = dialog('claude', 'dialog-bash-197');
    expect(d.lines).toEqual(['Bash command', 'echo hi > f.txt', 'Write hi to f.txt', 'Do you want to proceed?']);
    expect(dialog('claude', 'dialog-bash-332').lines).toEqual([
      'Bash command',
      'Tip: auto mode handles these prompts for you — choose "switch to auto mode" below',
      'Run a command',
      'echo hi > f.txt',
      'Do you want to proceed?',
    ]);
  });

  it('its identity does not follow the cursor or the footer, but follows what it asks', () => {
    const raw = lines('claude', 'dialog-bash-197');
    const before = readDialog('claude', raw);
    const moved = raw.map((l) =>
      l.replace(' ❯ 1. Yes', '   1. Yes').replace('   3. No', ' ❯ 3. No').replace(' · Tab to amend', ''),
    );
    const other = raw.map((l) => l.replace('echo hi > f.txt', 'rm -rf build'));
    const id = (l: string[]) => {
      const x = readDialog('claude', l);
      return x.state === 'dialog' && x.dialog ? dialogId(x.dialog) : null;
    };
    expect(before.state === 'dialog' && before.dialog?.selected).toBe(1);
    expect(id(moved)).toBe(id(raw));
    expect(id(other)).not.toBe(id(raw));
  });

  it('a screen with its input box is no dialog, even with a numbered list in the transcript', () => {
    const ready = lines('gemini', 'ready-empty-default');
    expect(readDialog('gemini', ready)).toEqual({ state: 'none' });
    expect(readDialog('codex', lines('codex', 'ready-empty'))).toEqual({ state: 'none' });
    const claude = [
      '● Here is the plan:',
      '  1. Read the file',
      '  2. Fix it',
      '─'.repeat(80),
      '❯\u00A0',
      '─'.repeat(80),
      '  ? for shortcuts',
    ];
    expect(readDialog('claude', claude)).toEqual({ state: 'none' });
  });

  it('a dialog the screen reader sees but no reader can parse is a dialog without choices', () => {
    const look = readDialog('claude', ['', ' Do you trust this?', '  (y/n)']);
    expect(look).toEqual({ state: 'dialog', dialog: null });
  });
});
