/**
 * Where each agent CLI keeps its transcripts: the only folders a transcript path from a hook note is read in
 * (an agent can write its own spool and name any file). Claude Code: `$CLAUDE_CONFIG_DIR/projects/` else
 * `~/.claude/projects/`; Codex: `$CODEX_HOME/sessions/` else `~/.codex/sessions/`; Gemini CLI:
 * `$GEMINI_CLI_HOME/.gemini/tmp/` else `~/.gemini/tmp/`. The daemon's environment and the agent's config `env`
 * are both looked at. docs/decisions/0008-what-an-agent-writes-is-hostile.md.
 */
import { join } from 'node:path';
import type { Agent } from '../../config/config.js';

type Env = Record<string, string | undefined>;

function folders(kind: Agent['kind'], env: Env): string[] {
  const home = env.HOME;
  const under = (base: string | undefined, ...rest: string[]) => (base ? [join(base, ...rest)] : []);
  switch (kind) {
    case 'claude':
      return env.CLAUDE_CONFIG_DIR ? under(env.CLAUDE_CONFIG_DIR, 'projects') : under(home, '.claude', 'projects');
    case 'codex':
      return env.CODEX_HOME ? under(env.CODEX_HOME, 'sessions') : under(home, '.codex', 'sessions');
    case 'gemini':
      return under(env.GEMINI_CLI_HOME || home, '.gemini', 'tmp');
    default:
      return [];
  }
}

/** The folders an agent's transcripts may be in: its client's, by the daemon's environment and the agent's own. */
export function clientFolders(agent: Pick<Agent, 'kind' | 'env'>, daemonEnv: Env = process.env): string[] {
  return [...new Set([...folders(agent.kind, daemonEnv), ...folders(agent.kind, { ...daemonEnv, ...agent.env })])];
}
