/**
 * A client's dialog (a permission request, a question, a trust or login prompt) as data, and the pure
 * decisions about answering one (docs/protocol.md §12): which choice a person's CHOICE names, and whether the
 * dialog on the screen now is the one offered. Its identity is its own words — the lines above its choices and
 * their labels — never the cursor (it moves) nor the footer (Claude Code's drops "Tab to amend" on row two).
 */

export const DIALOG_KINDS = ['permission', 'question', 'trust', 'login', 'other'] as const;
export type DialogKind = (typeof DIALOG_KINDS)[number];

/** One choice as the client's screen lists it: its number there (its place, when it numbers none) and its words. */
export type Choice = { n: number; label: string };

/** A dialog as its screen shows it (terminal/dialogs/ reads each client's). */
export interface ScreenDialog {
  kind: DialogKind;
  /** Its own lines above its choices (title, command, question), blanks and rules left out. */
  lines: string[];
  choices: Choice[];
  /** The choice the client's cursor is on (its n), or null when none is marked. */
  selected: number | null;
  /** Whether a choice's number, typed, picks it (Claude Code 2.1.332's start-up dialogs number none). */
  numbered: boolean;
}

/** Whitespace as one space, trimmed: the same words read twice compare equal however the box pads them. */
const squash = (s: string): string => s.replace(/\s+/g, ' ').trim();

/** FNV-1a, 64 bits, as 16 hex digits: a short name for a dialog's identity (pure: no crypto module here). */
function fnv64(text: string): string {
  let h = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(text)) {
    h ^= BigInt(byte);
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return h.toString(16).padStart(16, '0');
}

/** The dialog's identity: its kind, lines and choices' labels (not the cursor, not the footer). */
export function dialogId(d: Pick<ScreenDialog, 'kind' | 'lines' | 'choices'>): string {
  return fnv64(JSON.stringify([d.kind, d.lines.map(squash), d.choices.map((c) => [c.n, squash(c.label)])]));
}

/** The dialog's question in one line for a person: its lines joined, capped. */
export function questionOf(d: Pick<ScreenDialog, 'lines'>, max = 300): string {
  return capLine(d.lines.map(squash).filter(Boolean).join(' / '), max);
}

/** One line, at most `max` characters (an ellipsis when cut). */
export function capLine(s: string, max = 300): string {
  const one = squash(s);
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

/** A choice's words without the client's key hint at the end: Codex's " (y)", Gemini's " (esc)". */
const bareLabel = (label: string): string => squash(label).replace(/\s*\((?:y|p|n|esc)\)$/i, '');

/** The first affirmative choice: "Yes", "Yes, proceed (y)", "Allow once", "Trust folder", "Yes, I trust this folder". */
const AFFIRMATIVE = /^(?:yes|allow|trust|approve|proceed|accept|continue|submit)\b/i;
/** The negative choice: "No", "No, and tell Codex what to do differently (esc)", "Don't trust", "No, exit". */
const NEGATIVE = /^(?:no|don't|do not|deny|reject|cancel|decline)\b/i;

export type Picked = { ok: true; choice: Choice } | { ok: false; why: string };

/** The choices in one line, as a person reads them: `1. Yes, 2. Yes, and …, 3. No`. */
const listChoices = (choices: readonly Choice[]): string =>
  choices.map((c) => `${c.n}. ${capLine(c.label, 60)}`).join(', ');

/** A person's CHOICE: a number shown, a whole label (any case, key hint aside), `yes` / `no`, or a unique prefix. */
export function pickChoice(choices: readonly Choice[], input: string): Picked {
  const want = squash(input).toLowerCase();
  const all = () => (choices.length ? ` (choices: ${listChoices(choices)})` : ' (it lists no choices)');
  if (!want) return { ok: false, why: `no choice given${all()}` };
  if (/^\d+$/.test(want)) {
    const c = choices.find((x) => x.n === Number(want));
    return c ? { ok: true, choice: c } : { ok: false, why: `there is no choice ${want}${all()}` };
  }
  const exact = choices.filter(
    (c) => squash(c.label).toLowerCase() === want || bareLabel(c.label).toLowerCase() === want,
  );
  if (exact.length === 1) return { ok: true, choice: exact[0]! };
  if (want === 'yes' || want === 'no') {
    const c = choices.find((x) => (want === 'yes' ? AFFIRMATIVE : NEGATIVE).test(bareLabel(x.label)));
    return c ? { ok: true, choice: c } : { ok: false, why: `no choice reads as "${want}"${all()}` };
  }
  const starts = choices.filter((c) => squash(c.label).toLowerCase().startsWith(want));
  if (starts.length === 1) return { ok: true, choice: starts[0]! };
  if (starts.length > 1)
    return { ok: false, why: `"${input.trim()}" fits ${starts.length} choices: ${listChoices(starts)}` };
  return { ok: false, why: `no choice starts with "${input.trim()}"${all()}` };
}

/** Is the dialog on the screen now the one offered (by its identity)? Null when it is; else why not, in words. */
export function sameAsOffered(offered: string, now: ScreenDialog | null): string | null {
  if (!now) return 'no dialog is open on its screen now (it has closed)';
  if (dialogId(now) === offered) return null;
  return `the dialog on its screen is not the one offered: it now asks "${questionOf(now, 160)}"`;
}
