/**
 * Agent kinds (docs/protocol.md §5): how to start each agent CLI, its instructions file, how long to wait
 * before Enter, how to read its screen (screens/<kind>.ts), and how to submit while it is busy. aider, shell
 * and generic are checked as processes only (`confirmed: "not_checked"`).
 *
 * Enter waits for the box to show the paste, then `settleMs`, and never sooner than `enterDelayMs` after the
 * paste: Gemini CLI made an Enter within 40 ms of handling a paste a newline (29/30 at 150 ms, 0/20 at 0 ms).
 * The generic kind gets Claude Code's rule where tmux says the program uses bracketed paste: Enter once the
 * paste's end shows at the cursor (echo.ts), between `echoFloorMs` and `enterDelayMs`. `delivery.enter_delay_ms`
 * replaces `enterDelayMs` and the generic rule, never a read kind's box wait. Measurements:
 * docs/decisions/0001-enter-after-the-paste-shows.md.
 */
import type { AgentKind } from '../config/config.js';
import { readClaudeScreen } from './screens/claude.js';
import { readCodexScreen } from './screens/codex.js';
import { readGeminiScreen } from './screens/gemini.js';
import type { Screen } from './screen.js';

export interface KindSpec {
  /** The command `baton up` starts when the config gives none. */
  command: string | undefined;
  /** The instructions file the agent reads from its working folder. */
  instructions: string;
  /** Pause between the paste and Enter when delivery.enter_delay_ms is not set (for a kind whose box is read: the least). */
  enterDelayMs: number;
  /**
   * For a program baton knows nothing of: where it uses bracketed paste, Enter as soon as the paste's end
   * shows at the cursor (echo.ts), but no sooner than this long after the paste (then at most enterDelayMs).
   */
  echoFloorMs?: number;
  /** For a kind whose screen is read: the least time between its screen first showing the paste and Enter. */
  settleMs?: number;
  /** A known agent CLI: a bare shell in its place means the agent is gone (text would run as commands). */
  agentCli: boolean;
  /** Read the screen (capture-pane lines); absent when this kind's screen is not known. */
  readScreen?: (lines: string[]) => Screen;
  /** The screen is read with its colours (capture-pane -e): Codex's empty box is a dim placeholder. */
  colours?: boolean;
  /**
   * The key that submits a message to a busy agent as a turn of its own, where Enter would not: Codex
   * takes an Enter while busy as a steer into the running turn (its reply in flight is discarded), Tab queues.
   */
  busySubmit?: 'Tab';
  /**
   * The arguments, after everything else on its command line, that make the client resume session `id`
   * (docs/protocol.md §12): absent for a kind baton cannot resume. Measured on Claude Code 2.1.197
   * (`--resume ID`), Codex 0.169.0 (the `resume ID` subcommand; its options, baton's `-c` ones too, may
   * stand before it) and Gemini CLI 0.61.0 (`--resume ID`): each shows the old transcript and then its
   * input box, ready by the same screen rules as a fresh start, and its next request carries the whole
   * history. A session the client no longer has makes it exit at once (Claude Code and Codex with status 1,
   * Gemini CLI with 42), which `baton up` sees and starts it new (app/up/agent-start.ts).
   */
  resumeArgs?: (id: string) => string[];
}

export const KINDS: Record<AgentKind, KindSpec> = {
  claude: {
    command: 'claude',
    instructions: 'CLAUDE.md',
    enterDelayMs: 50,
    agentCli: true,
    readScreen: readClaudeScreen,
    resumeArgs: (id) => ['--resume', id],
  },
  codex: {
    command: 'codex',
    instructions: 'AGENTS.md',
    enterDelayMs: 25,
    agentCli: true,
    readScreen: readCodexScreen,
    colours: true,
    busySubmit: 'Tab',
    resumeArgs: (id) => ['resume', id],
  },
  gemini: {
    command: 'gemini',
    instructions: 'GEMINI.md',
    enterDelayMs: 150,
    settleMs: 150,
    agentCli: true,
    readScreen: readGeminiScreen,
    resumeArgs: (id) => ['--resume', id],
  },
  // aider reads conventions only when told to: --read.
  aider: { command: 'aider --read CONVENTIONS.md', instructions: 'CONVENTIONS.md', enterDelayMs: 150, agentCli: true },
  shell: { command: process.env.SHELL || 'bash', instructions: 'AGENTS.md', enterDelayMs: 50, agentCli: false },
  generic: { command: undefined, instructions: 'AGENTS.md', enterDelayMs: 150, echoFloorMs: 50, agentCli: false },
};
