/**
 * baton's hooks for the agents whose CLI has them (terminal/hooks/ says why for each), and what each needs on
 * its command line to run unattended in its folder: Codex its folder and baton's hooks trusted (`-c …`), the
 * message folder writable from its sandbox, baton's MCP server; Gemini CLI its folder trusted and a policy
 * allowing `baton post`. Nothing goes into the user's own ~/.claude, ~/.codex or ~/.gemini.
 */
import { relative } from 'node:path';
import type { Agent, Config } from '../../config/config.js';
import { log } from '../../lib/log.js';
import { shellQuote } from '../../lib/shell.js';
import { installClaudeHooks, registerClaudeMcp } from '../../terminal/hooks/claude-settings.js';
import { installCodexHooks } from '../../terminal/hooks/codex-hooks.js';
import { installGeminiHooks } from '../../terminal/hooks/gemini-settings.js';
import { batonMcpServer, codexMcpOverride } from '../../terminal/hooks/mcp-server.js';
import { spoolDir } from '../../terminal/hooks/spool.js';
import { programName } from '../../terminal/program.js';
import { CLI_JS } from '../paths.js';

/** What an agent's command line gets on top of its config: arguments for its CLI, and environment. */
export interface Launch {
  args: string[];
  env: Record<string, string>;
}

/** The command with the launch arguments added, when it runs the kind's own program (else as it is, with why). */
export function withLaunch(
  command: string,
  agent: Pick<Agent, 'kind'>,
  launch: Launch | undefined,
): { command: string; skipped?: string } {
  if (!launch?.args.length) return { command };
  if (programName(command) !== agent.kind) {
    const options = launch.args.filter((a) => a.startsWith('-')).join(' ');
    return { command, skipped: `"${command}" does not start ${agent.kind} itself, so baton cannot add ${options}` };
  }
  return { command: `${command} ${launch.args.map(shellQuote).join(' ')}` };
}

type Installed = { ok: boolean; file: string; why?: string; launch?: Launch };

/** baton's hooks in one agent's folder, and its launch additions (none for Claude Code: its settings file suffices). */
async function install(config: Config, agent: Agent, spool: string): Promise<Installed | null> {
  switch (agent.kind) {
    case 'claude':
      return installClaudeHooks(agent, spool, process.execPath, CLI_JS);
    case 'codex': {
      const r = await installCodexHooks(agent, spool, process.execPath, CLI_JS);
      // `baton post` writes into the message folder, outside the agent's folder: its sandbox must allow it.
      const roots = ['-c', `sandbox_workspace_write.writable_roots=${JSON.stringify([config.messageDir])}`];
      const mcp = ['-c', codexMcpOverride(batonMcpServer(process.execPath, CLI_JS, agent.name, config.file))];
      return { ...r, launch: { args: [...(r.ok ? r.args : []), ...roots, ...mcp], env: {} } };
    }
    case 'gemini': {
      const r = await installGeminiHooks(agent, {
        spool,
        node: process.execPath,
        cli: CLI_JS,
        configFile: config.file,
      });
      return r.ok ? { ...r, launch: { args: r.args, env: r.env } } : r;
    }
    default:
      return null;
  }
}

export async function installHooks(config: Config, agents: Agent[]): Promise<Map<string, Launch>> {
  const launches = new Map<string, Launch>();
  for (const agent of agents) {
    const r = await install(config, agent, spoolDir(config.messageDir, agent.name));
    if (!r) continue;
    const where = relative(process.cwd(), r.file) || r.file;
    if (r.ok) log.info(`${agent.name}: receipts and turn ends from its hooks (${where})`);
    else
      log.warn(
        `${agent.name}: cannot add baton's hooks to ${where}: ${r.why}; its deliveries are confirmed from the screen only`,
      );
    if (r.launch) launches.set(agent.name, r.launch);
    if (agent.kind !== 'claude') continue;
    // Its MCP server too: the agent may answer with the post tool instead of a shell command.
    const m = await registerClaudeMcp(agent, process.execPath, CLI_JS, config.file);
    if (!m.ok)
      log.warn(
        `${agent.name}: cannot register baton's MCP server in ${relative(process.cwd(), m.file) || m.file}: ${m.why}`,
      );
  }
  return launches;
}
