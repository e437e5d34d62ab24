/**
 * Agent kinds (docs/protocol.md §5): what baton knows about each agent CLI — how to start it, which instructions
 * file it reads, how long to wait before Enter, how to read its screen, and how to submit to it while it
 * is busy. A kind's screen patterns live in screens/<kind>.ts, so a new TUI version is a change to that
 * one file. Each was measured on the real CLI (the versions test/e2e/ runs), offline against a mock of its API.
 *
 * For the other kinds (aider, shell, generic) baton checks the process (alive, not a bare shell, not in
 * copy mode) but does not read the screen, and says so (`confirmed: "not_checked"`).
 *
 * Paste → Enter. For a kind whose screen is read, Enter waits until the box shows the paste (tmux-typist.ts
 * landed()), then for `settleMs` more, and is never sooner than `enterDelayMs` after the paste. Measured with
 * test/e2e/enter-delay.test.ts (BATON_ENTER_DELAY=1): a baton-shaped message (header, ten lines, hint, ~650
 * bytes) pasted as the daemon pastes it, Enter d ms later, the API mock counting the turns that carry the whole
 * text; on a 2-core machine shared with other test runs. submits/trials:
 *
 *     d (ms) after the paste     0      10     25     50     60     75     100    150    300
 *     claude 2.1.197            18/20  20/20  20/20  20/20   -     19/20  20/20  20/20   -
 *     claude 2.1.332            20/20  20/20  20/20  20/20   -     20/20  20/20  20/20   -
 *     codex 0.169.0             20/20  20/20  20/20  20/20   -     20/20  20/20  20/20   -
 *     gemini 0.61.0              0/20   0/20   3/20  12/20  15/20  14/20  19/20  20/20  29/30
 *
 *     d (ms) after shown         0      25     50     75     100    150    200     paste → shown, p50
 *     claude 2.1.197            80/80  20/20   -      -      -      -      -       37–91 ms
 *     claude 2.1.332            80/80  20/20  20/20   -      -      -      -       26–74 ms
 *     codex 0.169.0             20/20  20/20   -      -      -      -      -       27–29 ms
 *     gemini 0.61.0              4/20  12/20  19/20  20/20  30/30  30/30  30/30   32–136 ms
 *
 * Claude Code takes an Enter that comes before it has drawn the paste as part of it (the misses at 0 and 75 ms
 * above: the text stayed in the box), never one after: shown is its gate, and 50 ms from the paste a floor
 * that costs nothing at its p50. Codex took every Enter, even at 0 ms (earlier runs: 56/56, and 50/50 with
 * paste-buffer -r): 25 ms, about when its screen shows the paste anyway. Gemini CLI makes an Enter within
 * 40 ms of handling a paste a newline (its InputPrompt's recentUnsafePasteTime, plus a 30 ms "fast return"
 * for any Enter right after typed text) — counted from when it handles the paste, which under load is late:
 * 100 ms after the paste still missed once, so did 50 ms after the screen showed it, and with the machine so
 * busy that the paste took ~135 ms to show, once 300 ms after the paste (the old default) and once 100 ms
 * after it showed (69/70 at 150 ms / shown + 100). So Enter waits 150 ms after its screen shows the paste and
 * at least 150 ms after the paste (earlier: 0/56 at 0 ms, 25/28 at 50 ms, 56/56 from 150 ms); a miss left
 * the text in the box, where confirm() gives it its second Enter. At these defaults: 40/40 for each client.
 *
 * The generic kind gets Claude Code's rule — Enter as soon as the screen shows the paste landed, no sooner than
 * a floor — where it can: a program baton knows nothing of may have Claude Code's habit of taking an Enter that
 * comes before it has handled the paste as part of it, and waiting a fixed 150 ms for every message cost a
 * generic ping-pong most of its time. Its screen is not parsed, so "shown" is what any program that echoes
 * its input does (echo.ts): the paste's last characters appear on the cursor's line, which a program draws
 * only once it has read the paste to its end. That says something only when the program uses bracketed
 * paste — tmux says (`bracket_paste_flag`, tmux ≥ 3.7; else the tracker `baton up` gives its panes,
 * `@baton_paste`) — so the paste is one unit with an end to draw. Then Enter goes when that line shows,
 * but no sooner than `echoFloorMs` (50 ms: Claude Code's floor) and no later than `enterDelayMs` (150 ms)
 * after the paste; a program that does not echo, or where tmux cannot tell, gets the 150 ms, as before.
 * Measured with bench/bench.mjs's pingpong_default_delay (two generic recorders that echo, interleaved runs
 * on a loaded 2-core machine): 5.7–6.4 messages/s at the fixed 150 ms, 8.9–16.6 (median 14.2) with this
 * rule, every paste → Enter 37–57 ms as the recorders read them.
 * No second Enter rescues a miss here (its screen is not read): a program known to need more (Gemini CLI
 * takes an Enter within 40 ms of handling a paste as a newline) needs its own kind.
 *
 * `delivery.enter_delay_ms` replaces `enterDelayMs` and the generic rule (Enter exactly that long after the
 * paste), never a read kind's wait for its box or `settleMs`.
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
   * Gemini CLI with 42), which `baton up` sees and starts it new (app/agent-start.ts).
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
