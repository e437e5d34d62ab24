/**
 * Agent kinds (SPEC §5): what baton knows about each agent CLI — how to start it, which instructions
 * file it reads, how long to wait before Enter, and (where measured) how to read its screen. A kind's
 * screen patterns live in screens/<kind>.ts, so a new TUI version is a change to that one file.
 *
 * Only Claude Code's screen has been measured (CLAUDE-CODE.md); for the other kinds baton checks the
 * process (alive, not a bare shell, not in copy mode) but does not read the screen, and says so.
 */
import type { AgentKind } from '../config/config.js';
import { readClaudeScreen } from './screens/claude.js';
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
}

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

