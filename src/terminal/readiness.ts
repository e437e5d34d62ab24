/**
 * The readiness gate: may text be typed into this agent's pane now? The pane must exist and be alive,
 * not in copy mode (a person scrolling: the Enter would be swallowed), not a bare shell where an agent
 * CLI should be (the text would run as commands), and — for kinds whose screen baton reads — showing its
 * input box, empty (no dialog, no text a person is typing, nothing unrecognised).
 */
import { execa } from 'execa';
import type { Agent } from '../config/config.js';
import { KINDS } from './kinds.js';
import { capture, type PaneInfo } from './pane.js';
import { programName } from './program.js';
import { screenProblem, type Screen } from './screen.js';
import { readDemoScreen } from './screens/demo.js';
import type { Tmux } from './tmux.js';
import type { Intake } from './typist.js';

/** Programs that mean "the agent is gone and a shell is in its place": typed text would run as commands. */
const SHELLS = new Set(['bash', 'sh', 'dash', 'zsh', 'fish', 'ksh', 'mksh', 'tcsh', 'csh', 'ash', 'busybox', 'login']);

/**
 * A shell waiting for commands where an agent should be: the pane was started as a shell (a person's
 * interactive pane, where they ran the agent by hand) and a shell is in the foreground again. A shell
 * wrapping a started program (`agent > log 2>&1`) is not this: its pane was started with that program.
 */
export function isBareShell(pane: PaneInfo): boolean {
  return SHELLS.has(pane.command) && (pane.startCommand === '' || SHELLS.has(programName(pane.startCommand)));
}

/** A command line that starts an interactive shell and nothing else (`bash --norc -i`, `zsh -l`, empty). */
function startsShell(command: string): boolean {
  const unquoted = command.trim().replace(/^"(.*)"$/s, '$1');
  const words = unquoted.match(/\S+/g) ?? [];
  return words.length === 0 || (SHELLS.has(programName(words[0]!)) && words.slice(1).every((w) => w.startsWith('-')));
}

/**
 * How the pane takes text:
 * - `inert` for a shell — the `shell` kind, or any kind that is no known agent CLI whose pane is an
 *   interactive shell: it would run what a message says (a post with backticks and a second line once made
 *   a `--kind shell` receiver's bash create files), so it gets one comment line naming the message, which
 *   `baton show ID` prints.
 * - `one_line` for a program that did not ask for bracketed paste: each line break would submit (a
 *   `python3 input()` agent got six submissions from one message). tmux says whether it asked (tmux ≥
 *   3.7, or the tracker `baton up` gives its panes); else the pane's terminal does: in canonical mode
 *   (line by line) nothing can take a paste as one unit.
 * - `whole` otherwise: one bracketed paste.
 */
export async function intakeOf(agent: Pick<Agent, 'kind'>, pane: PaneInfo): Promise<Intake> {
  // The bundled demo agent stands in for every kind (`baton up --demo`) and reads a paste like a generic
  // program; a `--kind shell` demo that got the inert line never read msg_0001 and stalled. A shell in
  // its place is judged by the configured kind, as below.
  if (pane.demo && !SHELLS.has(pane.command)) return pane.bracketed === false ? 'one_line' : 'whole';
  const shellPane = SHELLS.has(pane.command) && startsShell(pane.startCommand);
  if (agent.kind === 'shell' || (!KINDS[agent.kind].agentCli && shellPane)) return 'inert';
  if (pane.bracketed !== null || pane.demo) return pane.bracketed === false ? 'one_line' : 'whole';
  return (await canonical(pane)) ? 'one_line' : 'whole';
}

/** Recent answers per pane instance: `stty` is a process (~2 ms), and a program rarely switches modes. */
const modes = new Map<string, { at: number; canonical: boolean }>();
const MODE_TTL_MS = 2000;

/** Is the pane's terminal in canonical (line by line) mode? (`stty -F`, Linux; false when it cannot say.) */
async function canonical(pane: PaneInfo): Promise<boolean> {
  if (!/^\/dev\/(pts\/\d+|tty\w+)$/.test(pane.tty)) return false;
  const key = `${pane.server}/${pane.id}/${pane.pid}`;
  const known = modes.get(key);
  if (known && performance.now() - known.at < MODE_TTL_MS) return known.canonical;
  const r = await execa('stty', ['-F', pane.tty, '-a'], { reject: false, timeout: 2000 });
  const answer = r.exitCode === 0 && /(^|[\s;])icanon([\s;]|$)/.test(String(r.stdout));
  if (modes.size > 256) modes.clear();
  modes.set(key, { at: performance.now(), canonical: answer });
  return answer;
}

/**
 * Why text must not be typed into this agent's pane now, or null when it may. A known agent CLI replaced
 * by a shell would run the text as commands. A pane `baton up` started runs the agent itself, so when
 * the agent exits the pane is dead, not a shell; the shell check is for panes a person started (targets,
 * or their own session). Generic programs may legitimately be shell scripts, so only known kinds count.
 */
export function whyNotTypable(agent: Pick<Agent, 'kind' | 'target' | 'session'>, pane: PaneInfo | null): string | null {
  if (!pane) return agent.target ? `there is no pane ${agent.target}` : `there is no tmux session "${agent.session}"`;
  if (pane.dead) return `pane ${pane.id} is dead`;
  if (KINDS[agent.kind].agentCli && pane.agentPane !== pane.id && isBareShell(pane))
    return `pane ${pane.id} runs a bare shell (${pane.command}), not the agent`;
  // In copy mode Enter is swallowed while a paste still reaches the program; a person is scrolling.
  if (pane.inMode) return `pane ${pane.id} is in copy mode (someone is scrolling it)`;
  return null;
}

/** The screen as the agent's kind reads it; null when the kind's screen is not known (or unreadable). */
export async function readScreen(tmux: Tmux, agent: Pick<Agent, 'kind'>, pane: PaneInfo): Promise<Screen | null> {
  const read = pane.demo ? readDemoScreen : KINDS[agent.kind].readScreen;
  if (!read) return null;
  const lines = await capture(tmux, pane, !pane.demo && KINDS[agent.kind].colours);
  return lines ? read(lines) : { state: 'unknown', detail: 'capture-pane failed' };
}

/** Does baton confirm submits on this pane's screen? (The demo agent's screen is only a readiness gate.) */
export const screenRead = (agent: Pick<Agent, 'kind'>, pane: PaneInfo): boolean =>
  Boolean(KINDS[agent.kind].readScreen) && !pane.demo;

/**
 * Why a message must wait now (with the screen that says so, if any), or null when it may be typed.
 * `screen`: the pane's screen as the caller has just read it (status reads it to show it), not read again.
 */
export async function whyNotReady(
  tmux: Tmux,
  agent: Pick<Agent, 'kind' | 'target' | 'session'>,
  pane: PaneInfo | null,
  read?: Screen | null,
): Promise<{ reason: string; screen?: Screen } | null> {
  const reason = whyNotTypable(agent, pane);
  if (reason || !pane) return { reason: reason ?? 'no pane' };
  // A client whose screen baton reads turns bracketed paste on once it takes input. Before that (Gemini CLI
  // waiting for its MCP servers drew an empty box) a paste arrives as keys: a "!" in it switched Gemini to
  // shell mode and the rest ran as a command. Such a pane is still starting, whatever its box shows.
  // The demo agent turns it on just before its banner, but the tracker (tmux < 3.7) says so a few to tens of
  // milliseconds after the banner shows, longer on a loaded machine: a topic typed in that gap went on one line
  // (intakeOf), and the demo, which reads the topic from the lines after the header, opened on an empty one.
  const starting = pane.demo ? 'the demo agent' : KINDS[agent.kind].readScreen ? agent.kind : null;
  if (starting && pane.bracketed === false)
    return { reason: `pane ${pane.id}: ${starting} has not turned on bracketed paste yet (still starting)` };
  const screen = read !== undefined ? read : await readScreen(tmux, agent, pane);
  const problem = screen && screenProblem(screen);
  return problem ? { reason: `pane ${pane.id}: ${problem}`, screen: screen! } : null;
}
