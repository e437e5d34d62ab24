/**
 * What a pane's screen shows, as far as baton can tell, and what that means for typing into it. Each
 * agent kind whose screen baton has measured has a reader in screens/ (the one place to change for a new
 * version of that client); a screen a reader does not recognise is never typed into blindly.
 */
/** What a pane's screen shows, as far as baton can tell. */
export type Screen =
  /** The input box is there and empty (the agent may be busy: Claude Code queues what it is sent). */
  | { state: 'ready'; busy: boolean }
  /** The input box holds text: a person typing, or a message not submitted yet. */
  | { state: 'holding'; busy: boolean; input: string }
  /** A dialog (permission, trust, menu) instead of the input box. */
  | { state: 'dialog'; detail: string }
  /** Not a screen this version of baton knows: never typed into blindly. */
  | { state: 'unknown'; detail: string };

/**
 * What a client shows in its box instead of a big paste: Claude Code `[Pasted text #1 +40 lines]`, Codex
 * `[Pasted Content 20124 chars]`, Gemini CLI `[Pasted Text: 10 lines]` / `[Pasted Text: 1998 chars]`.
 */
const PASTE_MARKER = /^\[Pasted (?:text #\d+|Content \d+ chars\]|Text: \d+ (?:lines|chars)\])/;

/**
 * Does text in the input box look like baton's paste that starts with `ours` (for a message, its header
 * prefix `[baton] msg_0007 `), or a client's marker for a big paste?
 */
export function isOurPaste(input: string, ours: string): boolean {
  return input.startsWith(ours) || PASTE_MARKER.test(input);
}

/** Why a screen must not be typed into now, or null when it may. */
export function screenProblem(screen: Screen): string | null {
  switch (screen.state) {
    case 'ready':
      return null;
    case 'holding':
      return (
        `its input box holds text (${JSON.stringify(screen.input.slice(0, 40))}${screen.input.length > 40 ? '…' : ''}): ` +
        'a person may be typing'
      );
    case 'dialog':
      return `a dialog is open (${screen.detail})`;
    case 'unknown':
      return `the screen is not one baton recognises (${screen.detail})`;
  }
}

/** What a client's marker for a big paste says of its size. */
function markerSize(input: string): { lines: number } | { chars: number } | null {
  const m = /^\[Pasted text #\d+ \+(\d+) lines\]$/.exec(input) ?? /^\[Pasted Text: (\d+) lines\]$/.exec(input) ?? null;
  if (m) return { lines: Number(m[1]) };
  const c = /^\[Pasted Content (\d+) chars\]$/.exec(input) ?? /^\[Pasted Text: (\d+) chars\]$/.exec(input);
  return c ? { chars: Number(c[1]) } : null;
}

/** Whether a marker's size is that of `text` (the clients count lines or line breaks, characters or UTF-16 units). */
function sizeFits(size: { lines: number } | { chars: number }, text: string): boolean {
  if ('lines' in size) {
    const lines = text.split('\n').length;
    return size.lines === lines || size.lines === lines - 1;
  }
  return [text.length, [...text].length].some((n) => Math.abs(size.chars - n) <= 2);
}

const squash = (s: string) => s.replace(/\s+/g, '');

/**
 * Which of `copies` (one message's text as it may have been pasted: plain, flagged) the input box holds,
 * alone — after a daemon was killed between a paste and its Enter, its next start finds the paste there.
 * The text itself, whitespace aside (the box wraps and indents long lines), names its copy; a client's
 * marker for a big paste names a copy only by its size: `which` is null when the size fits several (a flag
 * adds no line). Undefined when the box holds anything else — other text, two pastes, text typed after it.
 */
export function copyInBox(input: string, copies: readonly string[]): { which: number | null } | undefined {
  const text = copies.findIndex((c) => squash(c) === squash(input));
  if (text >= 0) return { which: text };
  const size = markerSize(input.trim());
  if (!size) return undefined;
  const fits = copies.flatMap((c, i) => (sizeFits(size, c) ? [i] : []));
  return fits.length === 0 ? undefined : { which: fits.length === 1 ? fits[0]! : null };
}

/** A screen without the input box: the first line a dialog pattern matches, else the last three lines. */
export function boxless(text: string[], dialogs: RegExp[], empty: string, clean = (l: string) => l.trim()): Screen {
  const hit = text.find((l) => dialogs.some((re) => re.test(l)));
  if (hit) return { state: 'dialog', detail: clean(hit).slice(0, 120) };
  const last = text.filter((l) => l.trim()).slice(-3);
  return { state: 'unknown', detail: last.join(' | ').slice(0, 200) || empty };
}
