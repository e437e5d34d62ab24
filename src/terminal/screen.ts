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
