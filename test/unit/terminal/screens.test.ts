/**
 * The screen readers of Codex CLI and Gemini CLI against real captures (`capture-pane -p -e`) of the real
 * clients, 0.169.0 and 0.61.0, in every state baton must tell apart (test/fixtures/screens/<kind>/). A new
 * client version that draws differently fails here first, naming the state.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../../test/helpers/harness.js';
import { copyInBox, isOurPaste, type Screen } from '../../../src/terminal/screen.js';
import { readCodexScreen } from '../../../src/terminal/screens/codex.js';
import { readGeminiScreen } from '../../../src/terminal/screens/gemini.js';
import { dimAt, plain } from '../../../src/terminal/screens/sgr.js';

const dir = (kind: string) => join(ROOT, 'test', 'fixtures', 'screens', kind);
const capture = (kind: string, name: string): string[] =>
  readFileSync(join(dir(kind), `${name}.txt`), 'utf8').split('\n');

/** What each capture must read as: its state, busy or not, and (for text in the box) how the text starts. */
type Expect = { state: Screen['state']; busy?: boolean; input?: RegExp };

function check(kind: string, read: (lines: string[]) => Screen, table: Record<string, Expect>): void {
  it('every capture in the fixtures is in the table', () => {
    expect(
      readdirSync(dir(kind))
        .map((n) => n.replace(/\.txt$/, ''))
        .sort(),
    ).toEqual(Object.keys(table).sort());
  });
  for (const [name, want] of Object.entries(table)) {
    it(`${name}: ${want.state}${want.busy ? ', busy' : ''}`, () => {
      const s = read(capture(kind, name));
      expect(s.state, JSON.stringify(s)).toBe(want.state);
      if (want.busy !== undefined && (s.state === 'ready' || s.state === 'holding'))
        expect(s.busy, 'busy').toBe(want.busy);
      if (want.input) expect(s.state === 'holding' ? s.input : '').toMatch(want.input);
    });
  }
}

describe('readCodexScreen (Codex CLI 0.169.0)', () => {
  check('codex', readCodexScreen, {
    'starting-blank': { state: 'unknown' },
    starting: { state: 'unknown' },
    'ready-empty': { state: 'ready', busy: false },
    'text-short': {
      state: 'holding',
      busy: false,
      input: /^\[baton\] msg_0001 from alice\nhello codex, first message$/,
    },
    'text-20k': { state: 'holding', busy: false, input: /^\[Pasted Content 21046 chars\]$/ },
    busy: { state: 'ready', busy: true },
    'busy-text': { state: 'holding', busy: true, input: /^\[baton\] msg_0004 from alice\nsteered while busy$/ },
    'busy-steered': { state: 'ready', busy: true },
    'busy-steered-tool': { state: 'ready', busy: true },
    'busy-queued': { state: 'ready', busy: true },
    'busy-hook-running': { state: 'ready', busy: true },
    'hooks-review': { state: 'dialog' },
    'trust-folder-dialog': { state: 'dialog' },
    // Verbatim from the measured dialogs (runs of blank lines dropped): dialogs.test.ts reads their choices.
    'dialog-escalation': { state: 'dialog' },
    'dialog-policy-prompt': { state: 'dialog' },
    'dialog-question': { state: 'dialog' },
    finished: { state: 'ready', busy: false },
    'idle-tab': { state: 'ready', busy: false },
  });

  it('the placeholder is told from text by its dim colour alone', () => {
    const line = '\x1b[1m›\x1b[0m\x1b[39m\x1b[49m \x1b[2mAsk Codex to do anything';
    expect(plain(line)).toBe('› Ask Codex to do anything');
    expect(dimAt(line, 2)).toBe(true);
    expect(dimAt('\x1b[1m›\x1b[0m Ask Codex to do anything', 2)).toBe(false);
    // The numbers of an extended colour are not attributes: 38;5;2 is a green, 38;2;2;2;2 a grey.
    expect(dimAt('› \x1b[38;5;2mtext', 2)).toBe(false);
    expect(dimAt('› \x1b[38;2;2;2;2mtext', 2)).toBe(false);
    expect(dimAt('› \x1b[38;5;223;2mtext', 2)).toBe(true);
  });
});

describe('readGeminiScreen (Gemini CLI 0.61.0)', () => {
  check('gemini', readGeminiScreen, {
    starting: { state: 'unknown' },
    'ready-empty-default': { state: 'ready', busy: false },
    'ready-empty-yolo': { state: 'ready', busy: false },
    // Without COLORTERM=truecolor the box has no half-block frame.
    'ready-empty-yolo-no-truecolor': { state: 'ready', busy: false },
    // An Enter too soon after the paste: a newline in the box, the text still there.
    'enter-became-newline': { state: 'holding', busy: false, input: /^\[baton\] msg_7001 from lab\nSAY newline case$/ },
    'text-short': { state: 'holding', busy: false, input: /^hello short text$/ },
    'text-10lines': { state: 'holding', busy: false, input: /^\[Pasted Text: 10 lines\]$/ },
    'text-20k': { state: 'holding', busy: false, input: /^\[Pasted Text: 330 lines\]$/ },
    busy: { state: 'ready', busy: true },
    'busy-text': { state: 'holding', busy: true, input: /^\[baton\] msg_0003 from bob\nfirst queued$/ },
    'busy-hook-running': { state: 'ready', busy: true },
    queued: { state: 'ready', busy: true },
    'queued-two': { state: 'ready', busy: true },
    'hooks-warning': { state: 'ready', busy: false },
    'after-turn': { state: 'ready', busy: false },
    'trust-dialog': { state: 'dialog' },
    'shell-approval': { state: 'dialog' },
    'loop-detected-dialog': { state: 'dialog' },
    'dialog-shell': { state: 'dialog' },
    'dialog-write': { state: 'dialog' },
    'dialog-ask-user': { state: 'dialog' },
  });
});

describe("a client's marker for a big paste is baton's own text in the box", () => {
  it('Claude Code, Codex, Gemini CLI', () => {
    for (const m of [
      '[Pasted text #1 +40 lines]',
      '[Pasted Content 21046 chars]',
      '[Pasted Text: 10 lines]',
      '[Pasted Text: 1998 chars]',
    ])
      expect(isOurPaste(m, '[baton] msg_0001 '), m).toBe(true);
    expect(isOurPaste('half a sentence', '[baton] msg_0001 ')).toBe(false);
  });
});

describe('which copy of a message the box holds, alone (a paste an earlier daemon left there)', () => {
  const plainCopy = '[baton] msg_0001 from a\nhello there\n\n[baton] reply to a with: baton post "<your reply>"';
  const flagged = plainCopy.replace('from a', 'from a (redelivered)');
  const copies = [plainCopy, flagged];

  it('its text, as the box wraps and indents it: that copy', () => {
    expect(copyInBox(plainCopy, copies)).toEqual({ which: 0 });
    expect(copyInBox(flagged.replace('hello there', 'hello\n  there'), copies)).toEqual({ which: 1 });
  });

  it("a client's marker for a paste of its size: that copy when only one fits, null when the flag changes nothing", () => {
    const lines = plainCopy.split('\n').length;
    expect(copyInBox(`[Pasted text #3 +${lines} lines]`, copies)).toEqual({ which: null });
    expect(copyInBox(`[Pasted text #3 +${lines - 1} lines]`, copies)).toEqual({ which: null });
    expect(copyInBox(`[Pasted Text: ${lines} lines]`, copies)).toEqual({ which: null });
    expect(copyInBox(`[Pasted Content ${plainCopy.length} chars]`, copies)).toEqual({ which: 0 });
    expect(copyInBox(`[Pasted Text: ${flagged.length + 1} chars]`, copies)).toEqual({ which: 1 });
  });

  it('anything else is not the message alone: other text, text after it, two pastes, a marker of another size', () => {
    for (const input of [
      'half a sentence',
      `${plainCopy} and more`,
      `${plainCopy}${flagged}`,
      '[Pasted text #1 +40 lines]',
      `[Pasted text #1 +${plainCopy.split('\n').length} lines] and more`,
      '[Pasted Content 21046 chars]',
    ])
      expect(copyInBox(input, copies), input).toBeUndefined();
  });
});
