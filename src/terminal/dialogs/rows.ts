/**
 * What the three clients' dialogs share on screen: a list of numbered choices at the bottom, one of them
 * marked by a cursor (Claude Code `❯`, Codex `›`, Gemini CLI `●`), the dialog's own lines above it, a footer
 * below. The transcript above may hold numbered lists of its own (a model's answer): the dialog's list is the
 * last one on the screen, numbered 1, 2, 3… with only descriptions, rules or blanks between its rows.
 */
import type { Choice, DialogKind, ScreenDialog } from '../../core/dialog.js';

export interface Rows {
  /** Index of each choice's line, in order. */
  at: number[];
  choices: Choice[];
  selected: number | null;
}

/**
 * The last numbered list on the screen. `row` matches one choice's line: group 1 the cursor (or empty), group 2
 * its number, group 3 its label. `between` says which lines may come between two rows (descriptions, rules).
 */
export function lastNumbered(text: string[], row: RegExp, between: (line: string) => boolean): Rows | null {
  let last = -1;
  for (let i = text.length - 1; i >= 0 && last < 0; i--) if (row.test(text[i]!)) last = i;
  if (last < 0) return null;
  const found: Array<{ at: number; n: number; label: string; cursor: boolean }> = [];
  for (let i = last; i >= 0; i--) {
    const m = row.exec(text[i]!);
    if (!m && between(text[i]!)) continue;
    if (!m) break;
    const n = Number(m[2]);
    if (found.length && n !== found[found.length - 1]!.n - 1) break;
    found.push({ at: i, n, label: m[3]!.trim(), cursor: Boolean(m[1]?.trim()) });
    if (n === 1) break;
  }
  found.reverse();
  if (!found.length || found[0]!.n !== 1) return null;
  return {
    at: found.map((f) => f.at),
    choices: found.map((f) => ({ n: f.n, label: f.label })),
    selected: found.find((f) => f.cursor)?.n ?? null,
  };
}

/** The non-blank lines from `from` up to (not including) `to`, each as `clean` makes it, dropping those it empties. */
export function linesBetween(text: string[], from: number, to: number, clean: (l: string) => string): string[] {
  return text
    .slice(Math.max(0, from), to)
    .map(clean)
    .filter((l) => l.trim() !== '');
}

/** The nearest line above `below` that `top` matches, at most `max` lines up; -1 when none. */
export function topAbove(text: string[], below: number, top: (line: string) => boolean, max = 20): number {
  for (let i = below - 1; i >= Math.max(0, below - max); i--) if (top(text[i]!)) return i;
  return -1;
}

/** A numbered dialog of `lines` above `rows`, its kind told by `kindOf` from those lines and the ones below. */
export function numberedDialog(text: string[], rows: Rows, lines: string[], kindOf: (words: string) => DialogKind) {
  const below = text.slice(rows.at.at(-1)! + 1).join('\n');
  const kind = kindOf([...lines, below].join('\n'));
  return { kind, lines, choices: rows.choices, selected: rows.selected, numbered: true } satisfies ScreenDialog;
}
