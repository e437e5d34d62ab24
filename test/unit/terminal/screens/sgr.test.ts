/**
 * terminal/screens/sgr.ts: a line captured with its colours (`capture-pane -e`), read as text and as
 * "is this column dim". Columns are positions in the plain text, so escape sequences take none.
 */
import { describe, expect, it } from 'vitest';
import { dimAt, plain } from '../../../../src/terminal/screens/sgr.js';

const ESC = '\x1b';
const sgr = (params: string) => `${ESC}[${params}m`;
/** The columns of `line` drawn dim, as a string of the dim characters. */
const dimText = (line: string) => [...plain(line)].filter((_, col) => dimAt(line, col)).join('');

describe('the text of a captured line', () => {
  it('has no colours, and no blanks at its end; those at its start stay', () => {
    expect(plain(`  ${sgr('1;31')}bold red${sgr('0')} text ${sgr('2')}   ${sgr('0')}  `)).toBe('  bold red text');
  });

  it('has no other sequences either: cursor and erase, OSC links, charsets, keypad', () => {
    const link = `${ESC}]8;id=1;https://example.com${ESC}\\here${ESC}]8;;${ESC}\\`;
    const titled = `${ESC}]0;a title\x07`;
    expect(plain(`a${ESC}[K${ESC}[?25l${ESC}[2;5H b`)).toBe('a b');
    expect(plain(`see ${link}.`)).toBe('see here.');
    expect(plain(`${titled}x`)).toBe('x');
    expect(plain(`${ESC}(Bq${ESC})0r${ESC}=s${ESC}>t${ESC}7u${ESC}8`)).toBe('qrstu');
  });

  it('a line with nothing but blanks and colours is empty', () => {
    expect(plain(`${sgr('2')}    ${sgr('0')}\t `)).toBe('');
    expect(plain('')).toBe('');
  });
});

describe('which columns are dim', () => {
  it('from SGR 2 up to SGR 22, a reset, or an empty SGR', () => {
    expect(dimText(`a${sgr('2')}bc${sgr('22')}d`)).toBe('bc');
    expect(dimText(`${sgr('2')}ab${sgr('0')}cd`)).toBe('ab');
    expect(dimText(`${sgr('2')}ab${sgr('')}cd`)).toBe('ab');
    expect(dimText(`${sgr('2')}ab${sgr('1')}cd`)).toBe('abcd');
  });

  it('the parameters of one SGR count in order', () => {
    expect(dimText(`${sgr('1;2')}ab`)).toBe('ab');
    expect(dimText(`${sgr('0;2')}ab`)).toBe('ab');
    expect(dimText(`${sgr('2;0')}ab`)).toBe('');
    expect(dimText(`${sgr('2;22;2')}ab`)).toBe('ab');
    // A parameter left empty is 0: a reset.
    expect(dimText(`${sgr('2')}ab${sgr(';1')}cd`)).toBe('ab');
  });

  it('a colour numbered 2 is no attribute: background, underline colour, true colour', () => {
    expect(dimText(`${sgr('48;5;2')}ab`)).toBe('');
    expect(dimText(`${sgr('58;5;2')}ab`)).toBe('');
    expect(dimText(`${sgr('48;2;2;2;2')}ab`)).toBe('');
    expect(dimText(`${sgr('38;2;0;0;0;2')}ab`)).toBe('ab');
  });

  it('a colour written with colons is no attribute either', () => {
    expect(dimText(`${sgr('38:5:2')}ab`)).toBe('');
    expect(dimText(`${sgr('2;38:5:2')}ab`)).toBe('ab');
  });

  it('other sequences neither take a column nor end the dim', () => {
    const link = `${ESC}]8;;https://example.com${ESC}\\`;
    expect(dimText(`x${sgr('2')}a${ESC}[Kb${link}c${sgr('0')}d`)).toBe('abc');
    expect(dimAt(`x${sgr('2')}a${ESC}[Kb`, 2)).toBe(true);
  });

  it('a column past the end of the text is not dim', () => {
    expect(dimAt(`${sgr('2')}ab`, 2)).toBe(false);
    expect(dimAt('', 0)).toBe(false);
  });

  it("Codex's empty box: a dim placeholder after an undimmed prompt sign", () => {
    const line = `${sgr('1')}›${sgr('0')} ${sgr('2')}Ask Codex to do anything${sgr('0')}  `;
    expect(plain(line)).toBe('› Ask Codex to do anything');
    expect(dimAt(line, 0)).toBe(false);
    expect(dimAt(line, 1)).toBe(false);
    expect(dimAt(line, 2)).toBe(true);
    expect(dimText(line)).toBe('Ask Codex to do anything');
  });
});

describe('dimAt: sub-parameters', () => {
  it('a double underline (tmux writes it as 4:2) is not dim', () => {
    expect(dimAt('\x1b[4:2mtyped text', 0)).toBe(false);
    expect(dimAt('\x1b[38:5:2mgreen', 0)).toBe(false);
    expect(dimAt('\x1b[4:2;2mdim and underlined', 0)).toBe(true);
  });
});
