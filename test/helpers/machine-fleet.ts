/**
 * Conversations for the machine's-daemon tests: each a Project whose two agents are recorder panes
 * `<tag>-c1`/`<tag>-c2` on its own tmux server ("target": `baton up` starts no agent), sharing one machine
 * registry (XDG_STATE_HOME) with `state` when given.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Project, readRecorder } from './harness.js';

export interface RecorderConversation {
  p: Project;
  logs: { claude1: string; claude2: string };
  /** Start its two recorder panes again (after their tmux server was killed); their logs. */
  panes(): Promise<{ claude1: string; claude2: string }>;
}

/** A conversation of two recorder panes; pushed onto `made` (the test stops them). */
export async function recorderConversation(
  tag: string,
  made: Project[],
  state?: Project,
): Promise<RecorderConversation> {
  const agents = Object.fromEntries(
    (['claude1', 'claude2'] as const).map((a, i) => [a, { kind: 'generic', target: `${tag}-c${i + 1}:0.0` }]),
  );
  const p = new Project({ agents, delivery: { enter_delay_ms: 0 } });
  if (state) p.env.XDG_STATE_HOME = state.env.XDG_STATE_HOME!;
  made.push(p);
  const logs = {
    claude1: await p.recorder(`${tag}-c1`, { as: 'claude1' }),
    claude2: await p.recorder(`${tag}-c2`, { as: 'claude2' }),
  };
  // Started again while a daemon looks for them: named as the agents only once the recorder reads its
  // terminal, or a message typed during its start-up is read as stray keys (a loaded CI machine did that).
  const panes = async () => ({
    claude1: await p.recorderWhenReady(`${tag}-c1`, { as: 'claude1' }),
    claude2: await p.recorderWhenReady(`${tag}-c2`, { as: 'claude2' }),
  });
  return { p, logs, panes };
}

/** The pid the machine's daemon recorded (daemon.json in the registry's folder). */
export const machinePid = (p: Project): number =>
  (JSON.parse(readFileSync(join(p.env.XDG_STATE_HOME!, 'baton', 'daemon.json'), 'utf8')) as { pid: number }).pid;

/** How many times `text` was typed into the recorder whose log is `log`. */
export const typedIn = (log: string, text: string): number =>
  readRecorder(log).typed.filter((t) => t.includes(text)).length;
