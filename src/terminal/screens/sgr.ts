/**
 * Reading a line captured with its colours (`capture-pane -e`): its text, and whether a column is drawn
 * dim. Codex draws its empty input box as a dim placeholder ("Ask Codex to do anything") that is text
 * like any other without its colour, so its screen is read with the colours on.
 */

// CSI sequences (SGR and the rest) and OSC strings; tmux's capture emits little more than SGR.
const ESCAPES = /\x1b\[[0-9;:?<=>]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>78]/g;

/** The text of a captured line, without escape sequences and trailing blanks. */
export const plain = (line: string): string => line.replace(ESCAPES, '').replace(/\s+$/, '');

/** Is the character at `col` (an index into plain(line)) drawn dim (SGR 2)? */
export function dimAt(line: string, col: number): boolean {
  let dim = false;
  let at = 0;
  for (const part of line.split(/(\x1b\[[0-9;:]*m)/)) {
    const sgr = /^\x1b\[([0-9;:]*)m$/.exec(part);
    if (sgr) {
      // Parameters are split by ";"; a ":" joins sub-parameters to theirs (tmux writes a double underline as
      // `4:2` and may write colours as `38:5:N`): only the part before the ":" is an attribute.
      const ps = (sgr[1] || '0').split(';');
      for (let i = 0; i < ps.length; i++) {
        const [p, ...sub] = ps[i]!.split(':');
        if (p === '' || p === '0' || p === '22') dim = false;
        else if (p === '2') dim = true;
        // An extended colour's own numbers (38;5;N, 38;2;R;G;B) are no attributes: `38;5;2` is green, not dim.
        else if ((p === '38' || p === '48' || p === '58') && !sub.length)
          i += ps[i + 1] === '5' ? 2 : ps[i + 1] === '2' ? 4 : 0;
      }
      continue;
    }
    const text = part.replace(ESCAPES, '');
    if (col < at + text.length) return dim;
    at += text.length;
  }
  return false;
}
