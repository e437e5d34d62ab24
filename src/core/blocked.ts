/**
 * Blocked on a person (docs/protocol.md §12), as pure decisions: when an agent's dialog is open, what closes it,
 * and when the conversation is blocked. The daemon (daemon/dialogs.ts) feeds them hooks, screens and the time.
 *
 * Measured (Claude Code 2.1.197 / 2.1.332, Codex 0.169.0, Gemini CLI 0.61.0, offline, without bypass mode):
 * - A hook says a dialog opened (dialog-hooks.ts) before it is drawn: up to 0.5 s before on Claude Code
 *   2.1.332, ~1 s on Codex. So the screen closes a hook's dialog only once it has shown it, or when it still
 *   has not after OPEN_GRACE_MS (a person who answered it at once).
 * - A hook says it closed only when the tool ran or the turn went on. **"No" and Esc fire no hook in any
 *   client**, and start-up dialogs (folder trust, an API key) none at all: only the screen shows those.
 */
import type { Choice, DialogKind, ScreenDialog } from './dialog.js';
import { dialogId, questionOf } from './dialog.js';

/** How long a dialog a hook reported may stay undrawn before a screen without it counts as closed. */
export const OPEN_GRACE_MS = 5000;

/** An agent's open dialog, as the daemon keeps it. */
export interface OpenDialog {
  /** When it opened (ISO, the conversation's clock) and in ms, for the grace period. */
  since: string;
  sinceMs: number;
  kind: DialogKind;
  /** What it asks: the tool and its input from the hook, else the dialog's own lines. `source`: who said so first. */
  question: string;
  source: 'hook' | 'screen';
  /** The screen has shown it: from then on a screen without it means it closed. */
  seen: boolean;
  /** Its choices once seen, its identity (core/dialog.ts), and the identity the hook's question was given to. */
  choices?: Choice[];
  id?: string;
  hookFor?: string | null;
  /** The hook said only that some dialog waits (dialog-hooks.ts): what the screen shows it asks comes first. */
  vague?: boolean;
}

/** What a look at the screen found: a dialog (null when its layout is not one baton reads), none, or a screen it does not know. */
export type ScreenLook = { state: 'dialog'; dialog: ScreenDialog | null } | { state: 'none' } | { state: 'unknown' };

/** A moment: ISO (the conversation's clock) and ms. */
type At = { iso: string; ms: number };

/** A hook said a dialog opened (`at`: when). */
export function hookOpened(
  prev: OpenDialog | null,
  at: At,
  what: { kind: DialogKind; question: string; vague?: boolean },
): OpenDialog {
  const { kind, question } = what;
  const vague = what.vague ? { vague: true } : {};
  if (prev) {
    const { vague: _, ...kept } = prev;
    return { ...kept, kind, question, source: 'hook', hookFor: null, ...vague };
  }
  return { since: at.iso, sinceMs: at.ms, kind, question, source: 'hook', seen: false, hookFor: null, ...vague };
}

/** The screen as it is now, against what was open (`now`: ms). Null: no dialog is open. */
export function screenSaw(prev: OpenDialog | null, look: ScreenLook, now: At): OpenDialog | null {
  if (look.state === 'unknown') return prev;
  if (look.state === 'none') {
    if (!prev) return null;
    return prev.seen || now.ms - prev.sinceMs >= OPEN_GRACE_MS ? null : prev;
  }
  const d = look.dialog;
  const id = d ? dialogId(d) : undefined;
  const fromScreen = d ? questionOf(d) : 'a dialog baton cannot read';
  if (!prev)
    return {
      since: now.iso,
      sinceMs: now.ms,
      kind: d?.kind ?? 'other',
      question: fromScreen,
      source: 'screen',
      seen: true,
      ...(d ? { choices: d.choices, id } : {}),
    };
  // The hook's question is for the first dialog drawn after it; a later one (the next step, the next tool)
  // without a hook of its own asks what its own lines say.
  const hookFor = prev.source === 'hook' ? (prev.hookFor ?? id ?? null) : null;
  // A vague hook's words ("Ask User", "Claude needs your permission") give way to the dialog's own lines.
  const hooks = prev.source === 'hook' && !prev.vague && (hookFor === null || hookFor === id);
  return {
    ...prev,
    seen: true,
    hookFor,
    kind: hooks ? prev.kind : (d?.kind ?? prev.kind),
    question: hooks ? prev.question : fromScreen,
    ...(d ? { choices: d.choices, id } : {}),
  };
}

/** The conversation's `blocked` in state.json: who waits for a person, since when, at what (choices once seen). */
export interface Blocked {
  agent: string;
  since: string;
  kind: DialogKind;
  question: string;
  choices?: Choice[];
  dialog?: string;
}

/** The conversation is blocked when, and only when, the turn holder's dialog is open. */
export function blockedOf(holder: string, open: OpenDialog | null | undefined): Blocked | null {
  if (!open) return null;
  const { since, kind, question, choices, id } = open;
  return { agent: holder, since, kind, question, ...(choices && id ? { choices, dialog: id } : {}) };
}

/** The state keys this module writes (the clock's: conversation.ts reads them). */
export interface BlockState {
  blocked?: Blocked | null | undefined;
  /** Time blocked since the conversation (or its last resume) started, and within the turn (ms). */
  blocked_ms?: number | undefined;
  turn_blocked_ms?: number | undefined;
  started_at?: string | undefined;
  turn_started_at?: string | undefined;
}

/** What a change of `blocked` is, for the event log: one began, one ended, or its dialog changed (same agent). */
export type BlockChange =
  | { kind: 'blocked'; blocked: Blocked }
  | { kind: 'unblocked'; was: Blocked; after_ms: number }
  | { kind: 'changed'; blocked: Blocked };

const same = (a: Blocked | null | undefined, b: Blocked | null): boolean =>
  JSON.stringify(a ?? null) === JSON.stringify(b);

/**
 * The state with `blocked` as `next` says: an ended block's time (within the run, within the turn) is added to
 * `blocked_ms` and `turn_blocked_ms`, so reminders and max_duration_s count only time nobody waited for a person.
 */
export function withBlocked<S extends BlockState>(
  state: S,
  next: Blocked | null,
  nowMs: number,
): { state: S; changes: BlockChange[] } {
  const was = state.blocked ?? null;
  if (same(was, next)) return { state, changes: [] };
  if (was && next && was.agent === next.agent) {
    const kept = { ...next, since: was.since };
    if (same(was, kept)) return { state, changes: [] };
    return { state: { ...state, blocked: kept }, changes: [{ kind: 'changed', blocked: kept }] };
  }
  let s: S = { ...state, blocked: next };
  const changes: BlockChange[] = [];
  if (was) {
    const since = Date.parse(was.since);
    const within = (from: string | undefined) => Math.max(0, nowMs - Math.max(since, from ? Date.parse(from) : since));
    s = {
      ...s,
      blocked_ms: (state.blocked_ms ?? 0) + within(state.started_at),
      turn_blocked_ms: (state.turn_blocked_ms ?? 0) + within(state.turn_started_at),
    };
    changes.push({ kind: 'unblocked', was, after_ms: Math.max(0, nowMs - since) });
  }
  if (next) changes.push({ kind: 'blocked', blocked: next });
  return { state: s, changes };
}
