/**
 * Agent kinds (docs/protocol.md §5): what baton knows about each agent CLI — how to start it, which instructions
 * file it reads, how long to wait before Enter, how to read its screen, and how to submit to it while it
 * is busy. A kind's screen patterns live in screens/<kind>.ts, so a new TUI version is a change to that
 * one file. Each was measured on the real CLI (the versions test/e2e/ runs), offline against a mock of its API.
 *
 * For the other kinds (aider, shell, generic) baton checks the process (alive, not a bare shell, not in
 * copy mode) but does not read the screen, and says so (`confirmed: "not_checked"`).
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
  /** Pause between the paste and Enter when delivery.enter_delay_ms is not set. */
  enterDelayMs: number;
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
}

export const KINDS: Record<AgentKind, KindSpec> = {
  claude: {
    command: 'claude',
    instructions: 'CLAUDE.md',
    enterDelayMs: 150,
    agentCli: true,
    readScreen: readClaudeScreen,
  },
  // Codex submits a bracketed paste on an Enter even at 0 ms (56/56, and 50/50 with paste-buffer -r).
  codex: {
    command: 'codex',
    instructions: 'AGENTS.md',
    enterDelayMs: 150,
    agentCli: true,
    readScreen: readCodexScreen,
    colours: true,
    busySubmit: 'Tab',
  },
  // Gemini takes an Enter within ~50 ms of a paste as a newline (0/56 at 0 ms, 25/28 at 50 ms, 56/56 from 150 ms).
  gemini: {
    command: 'gemini',
    instructions: 'GEMINI.md',
    enterDelayMs: 300,
    agentCli: true,
    readScreen: readGeminiScreen,
  },
  // aider reads conventions only when told to: --read.
  aider: { command: 'aider --read CONVENTIONS.md', instructions: 'CONVENTIONS.md', enterDelayMs: 150, agentCli: true },
  shell: { command: process.env.SHELL || 'bash', instructions: 'AGENTS.md', enterDelayMs: 50, agentCli: false },
  generic: { command: undefined, instructions: 'AGENTS.md', enterDelayMs: 150, agentCli: false },
};
