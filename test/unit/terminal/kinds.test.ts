import { describe, expect, it } from 'vitest';
import { KINDS } from '../../../src/terminal/kinds.js';
import { screenProblem } from '../../../src/terminal/screen.js';
import { readClaudeScreen } from '../../../src/terminal/screens/claude.js';

const RULE = '─'.repeat(80);
const NBSP = '\u00A0';
const screen = (...lines: string[]) => ['', ...lines, ''];

describe('readClaudeScreen (the layout measured on the real Claude Code)', () => {
  it('an empty input box is ready; the queued placeholder counts as empty', () => {
    expect(
      readClaudeScreen(
        screen(
          '❯ earlier message',
          '● answer',
          RULE,
          `❯${NBSP}`,
          RULE,
          '  ⏵⏵ bypass permissions on (shift+tab to cycle)',
        ),
      ),
    ).toEqual({ state: 'ready', busy: false });
    expect(readClaudeScreen(screen(RULE, `❯${NBSP}Press up to edit queued messages`, RULE))).toEqual({
      state: 'ready',
      busy: false,
    });
  });

  it('busy: a spinner above the box or "esc to interrupt" below it; still ready (Claude Code queues)', () => {
    expect(readClaudeScreen(screen('✢ Moseying… (3s)', RULE, `❯${NBSP}`, RULE))).toEqual({
      state: 'ready',
      busy: true,
    });
    expect(readClaudeScreen(screen(RULE, `❯${NBSP}`, RULE, '  ⏵⏵ bypass permissions on · esc to interrupt'))).toEqual({
      state: 'ready',
      busy: true,
    });
    // 2.1.197 shows "paste again to expand" in the footer after a paste: not busy by itself.
    expect(readClaudeScreen(screen(RULE, `❯${NBSP}`, RULE, '  paste again to expand · esc to interrupt'))).toEqual({
      state: 'ready',
      busy: false,
    });
  });

  it('text in the box (one line, several, or a pasted-text marker) is held, with the text', () => {
    expect(readClaudeScreen(screen(RULE, `❯${NBSP}half a sentence a person is typ`, RULE))).toEqual({
      state: 'holding',
      busy: false,
      input: 'half a sentence a person is typ',
    });
    expect(readClaudeScreen(screen(RULE, `❯${NBSP}[baton] msg_0001 from claude1`, '  hello', '  world', RULE))).toEqual(
      { state: 'holding', busy: false, input: '[baton] msg_0001 from claude1\nhello\nworld' },
    );
    expect(readClaudeScreen(screen(RULE, `❯${NBSP}[Pasted text #1 +40 lines]`, RULE)).state).toBe('holding');
  });

  it('the input box is the last one: a rule pair in the transcript above does not count', () => {
    const s = screen(RULE, 'some table', RULE, '● text', RULE, `❯${NBSP}`, RULE);
    expect(readClaudeScreen(s)).toEqual({ state: 'ready', busy: false });
  });

  it('a dialog instead of the box, and a screen nobody knows, are never ready', () => {
    const dialog = readClaudeScreen(
      screen(' Do you trust the files in this folder?', ' ❯ 1. Yes, proceed', '   2. No, exit'),
    );
    expect(dialog.state).toBe('dialog');
    expect(screenProblem(dialog)).toMatch(/^a dialog is open/);
    const unknown = readClaudeScreen(screen('$ ', 'bash-5.2$'));
    expect(unknown).toEqual({ state: 'unknown', detail: '$ | bash-5.2$' });
    expect(screenProblem(unknown)).toMatch(/not one baton recognises/);
    expect(readClaudeScreen([]).state).toBe('unknown');
  });
});

describe('KINDS', () => {
  it("every kind names its instructions file and Enter delay; Gemini's Enter waits past its measured newline window", () => {
    expect(KINDS.claude.instructions).toBe('CLAUDE.md');
    expect(KINDS.codex.instructions).toBe('AGENTS.md');
    expect(KINDS.gemini.instructions).toBe('GEMINI.md');
    // Measured (kinds.ts): a miss at 100 ms after the paste and at 50 ms after the screen showed it; none from
    // 150 ms after the paste, or 75 ms after it showed.
    expect(KINDS.gemini.enterDelayMs).toBeGreaterThanOrEqual(150);
    expect(KINDS.gemini.settleMs).toBeGreaterThanOrEqual(75);
    expect(KINDS.generic.command).toBeUndefined();
    // The three measured clients have their screens read; a busy Codex gets Tab (Enter would steer).
    expect(Object.values(KINDS).filter((k) => k.readScreen)).toEqual([KINDS.claude, KINDS.codex, KINDS.gemini]);
    expect(KINDS.codex.busySubmit).toBe('Tab');
  });
});
