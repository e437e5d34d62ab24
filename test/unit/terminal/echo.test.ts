/**
 * terminal/echo.ts: what "the screen shows the paste landed" means for a program baton does not read — the
 * paste's last characters on the cursor's line (tmux joining what the terminal wrapped), and only where tmux
 * can say the program uses bracketed paste. Against a fake tmux that answers the two commands it is asked.
 */
import { describe, expect, it } from 'vitest';
import { echoed, tailOf } from '../../../src/terminal/echo.js';

/** A tmux whose pane has the cursor on row `y` and shows `rows` (as capture-pane -J gives them up to that row). */
function fakeTmux(o: { y: number; flag?: '' | '0' | '1'; tracker?: '' | 'on' | 'off'; rows: string[] }) {
  const asked: string[][] = [];
  const ok = (stdout: string) => ({ ok: true, stdout, stderr: '', exitCode: 0, timedOut: false });
  return {
    asked,
    run: async (args: string[]) => {
      asked.push(args);
      if (args[0] === 'display-message') return ok(`${o.y}\t${o.flag ?? ''}\t${o.tracker ?? 'on'}`);
      return ok(o.rows.join('\n'));
    },
  };
}

const text = '[baton] msg_0007 from a\nhello\n\n[baton] reply to a with: baton post "<your reply>"';

describe('the end of a paste, on the screen', () => {
  it('is the last characters of its last line, white space squeezed', () => {
    expect(tailOf(text)).toBe('with: baton post "<your reply>"');
    expect(tailOf('one line')).toBe('one line');
    expect(tailOf('a\n   spaced \t out   ')).toBe('spaced out');
  });

  it('shown when the cursor line holds it (after a prompt, or wrapped and joined)', async () => {
    const tail = tailOf(text);
    const shown = fakeTmux({ y: 9, rows: ['hello', '', `> [baton] reply to a with: baton post "<your reply>"`] });
    expect(await echoed(shown, '%1', tail)).toBe(true);
    expect(shown.asked[1]).toEqual(['capture-pane', '-p', '-J', '-t', '%1', '-S', '7', '-E', '9']);
    const top = fakeTmux({
      y: 0,
      flag: '1',
      tracker: '',
      rows: [`│ ${'x'.repeat(160)} [baton] reply to a with: baton post "<your reply>"    │`],
    });
    expect(await echoed(top, '%1', tail)).toBe(true);
    // Never a row above the screen's first.
    expect(top.asked[1]).toEqual(['capture-pane', '-p', '-J', '-t', '%1', '-S', '0', '-E', '0']);
  });

  it('not shown while the cursor line does not hold it, even with the text above it (an earlier message)', async () => {
    const before = fakeTmux({ y: 4, rows: [`[baton] reply to a with: baton post "<your reply>"`, '> '] });
    expect(await echoed(before, '%1', tailOf(text))).toBe(false);
    const blank = fakeTmux({ y: 4, rows: [`[baton] reply to a with: baton post "<your reply>"`, ''] });
    expect(await echoed(blank, '%1', tailOf(text))).toBe(false);
  });

  it('cannot be told where tmux cannot say the program uses bracketed paste: the screen is not even read', async () => {
    for (const o of [
      { flag: '0', tracker: 'on' },
      { flag: '', tracker: 'off' },
      { flag: '', tracker: '' },
    ] as const) {
      const t = fakeTmux({ y: 3, ...o, rows: ['x'] });
      expect(await echoed(t, '%1', 'x')).toBeNull();
      expect(t.asked).toHaveLength(1);
    }
  });
});
