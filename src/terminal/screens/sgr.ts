/**
 * Reading a line captured with its colours (`capture-pane -e`): its text, and whether a column is drawn
 * dim. Codex draws its empty input box as a dim placeholder ("Ask Codex to do anything") that is text
 * like any other without its colour, so its screen is read with the colours on.
 */

// CSI sequences (SGR and the rest) and OSC strings; tmux's capture emits little more than SGR.
// eslint-disable-next-line no-control-regex
const ESCAPES = /\x1b\[[0-9;:?<=>]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>78]/g;

/** The text of a captured line, without escape sequences and trailing blanks. */
export const plain = (line: string): string => line.replace(ESCAPES, '').replace(/\s+$/, '');

/** Is the character at `col` (an index into plain(line)) drawn dim (SGR 2)? */
export function dimAt(line: string, col: number): boolean {
  let dim = false;
  let at = 0;
  // eslint-disable-next-line no-control-regex
  for (const part of line.split(/(\x1b\[[0-9;:]*m)/)) {
    const sgr = /^\x1b\[([0-9;:]*)m$/.exec(part);
    if (sgr) {
      for (const p of (sgr[1] || '0').split(/[;:]/)) {
        if (p === '' || p === '0' || p === '22') dim = false;
        else if (p === '2') dim = true;
      }
      continue;
    }
    const text = part.replace(ESCAPES, '');
    if (col < at + text.length) return dim;
    at += text.length;
  }
  return false;
}
