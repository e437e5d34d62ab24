/**
 * Agent kinds (SPEC §5): what baton knows about each agent CLI — how to start it, which instructions
 * file it reads, how long to wait before Enter, and (where measured) how to read its screen. Every
 * screen pattern of a kind lives here, so a new TUI version is a change to this one file.
 *
 * Only Claude Code's screen has been measured (CLAUDE-CODE.md); for the other kinds baton checks the
 * process (alive, not a bare shell, not in copy mode) but does not read the screen, and says so.
 */
import type { AgentKind } from './config.js';

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

export interface KindSpec {
  /** The command `baton up` starts when the config gives none. */
  command: string | undefined;
  /** The instructions file the agent reads from its working folder. */
  instructions: string;
  /** Pause between the paste and Enter when delivery.enter_delay_ms is not set. */
  enterDelayMs: number;
  /** A known agent CLI: a bare shell in its place means the agent is gone (text would run as commands). */
  agentCli: boolean;
  /** Read the screen (capture-pane lines); absent when this kind's screen is not known. */
  readScreen?: (lines: string[]) => Screen;
}

// ---- Claude Code (measured on 2.1.197 and 2.1.330) ------------------------------------------------

/** A horizontal rule of the input box: a run of box-drawing dashes filling most of the line. */
const RULE = /^\s*─{20,}\s*$/;
/** The prompt: ❯ then a (no-break) space; continuation lines are indented two spaces. */
const PROMPT = /^❯[\s\u00A0]?(.*)$/;
/** Shown in an empty box after a message was queued while the agent was busy. */
const QUEUED_PLACEHOLDER = /^Press up to edit queued messages/;
/** A turn is running: a spinner line (· ✢ ✳ ✶ ✻ ✽ * then a verb and "…") or "esc to interrupt". */
const SPINNER = /^[·✢✳✶✻✽*]\s+\S.*…/;
const BUSY_FOOTER = /esc to interrupt/;
/** Dialogs: numbered choices with a pointer, or the usual questions. */
const DIALOG = [/^\s*❯\s*\d+\.\s+\S/, /Do you want to/i, /Do you trust/i, /\(y\/n\)/i, /Enter to confirm/i];

export function readClaudeScreen(lines: string[]): Screen {
  const text = lines.map((l) => l.replace(/\s+$/, ''));
  // The input box is the last pair of rules with a prompt line right below the upper one.
  for (let bottom = text.length - 1; bottom > 0; bottom--) {
    if (!RULE.test(text[bottom]!)) continue;
    let top = bottom - 1;
    while (top >= 0 && !RULE.test(text[top]!)) top--;
    if (top < 0) break;
    const inside = text.slice(top + 1, bottom);
    const first = PROMPT.exec(inside[0] ?? '');
    if (!first) {
      bottom = top + 1; // not the input box; keep looking above it
      continue;
    }
    const input = [first[1]!, ...inside.slice(1).map((l) => l.replace(/^ {2}/, ''))].join('\n').replace(/\u00A0/g, ' ').trim();
    const around = [...text.slice(Math.max(0, top - 3), top), ...text.slice(bottom + 1)];
    const busy = around.some((l) => SPINNER.test(l.trim())) || text.slice(bottom + 1).some((l) => BUSY_FOOTER.test(l) && !/paste again/.test(l));
    if (input === '' || QUEUED_PLACEHOLDER.test(input)) return { state: 'ready', busy };
    return { state: 'holding', busy, input };
  }
  const hit = text.find((l) => DIALOG.some((re) => re.test(l)));
  if (hit) return { state: 'dialog', detail: hit.trim().slice(0, 120) };
  const tail = text.filter((l) => l.trim()).slice(-3).join(' | ');
  return { state: 'unknown', detail: tail.slice(0, 200) || '(empty screen)' };
}

// ---- the bundled demo agent (`baton up --demo`, src/demo/agent.ts) ---------------------------------

/**
 * The demo agent prints its banner once it reads its terminal. Until then typed text would reach a
 * terminal still in cooked mode and be lost, so its screen is a readiness gate (and only that: it has no
 * input box to confirm a submit with).
 */
export function readDemoScreen(lines: string[]): Screen {
  return lines.some((l) => l.startsWith('baton demo agent "')) ? { state: 'ready', busy: false } : { state: 'unknown', detail: 'the demo agent is starting' };
}

// ---- the kinds ------------------------------------------------------------------------------------

export const KINDS: Record<AgentKind, KindSpec> = {
  claude: { command: 'claude', instructions: 'CLAUDE.md', enterDelayMs: 150, agentCli: true, readScreen: readClaudeScreen },
  // Codex takes an Enter within ~120 ms of a paste burst as a newline (openai/codex#28167).
  codex: { command: 'codex', instructions: 'AGENTS.md', enterDelayMs: 300, agentCli: true },
  gemini: { command: 'gemini', instructions: 'GEMINI.md', enterDelayMs: 150, agentCli: true },
  // aider reads conventions only when told to: --read.
  aider: { command: 'aider --read CONVENTIONS.md', instructions: 'CONVENTIONS.md', enterDelayMs: 150, agentCli: true },
  shell: { command: process.env.SHELL || 'bash', instructions: 'AGENTS.md', enterDelayMs: 50, agentCli: false },
  generic: { command: undefined, instructions: 'AGENTS.md', enterDelayMs: 150, agentCli: false },
};

/** Does text in the input box look like baton's paste starting with `start` (or Claude Code's marker for a big paste)? */
export function isOurPaste(input: string, start: string): boolean {
  return input.startsWith(start) || /^\[Pasted text #\d+/.test(input);
}

/** Why a screen must not be typed into now, or null when it may. */
export function screenProblem(screen: Screen): string | null {
  switch (screen.state) {
    case 'ready':
      return null;
    case 'holding':
      return `its input box holds text (${JSON.stringify(screen.input.slice(0, 40))}${screen.input.length > 40 ? '…' : ''}): a person may be typing`;
    case 'dialog':
      return `a dialog is open (${screen.detail})`;
    case 'unknown':
      return `the screen is not one baton recognises (${screen.detail})`;
  }
}
