/** Installing baton's hooks for the agents whose CLI has them (issue 16; terminal/hooks/ has the why). */
import { relative } from 'node:path';
import type { Agent, Config } from '../config/config.js';
import { log } from '../lib/log.js';
import { installClaudeHooks, registerClaudeMcp } from '../terminal/hooks/claude-settings.js';
import { spoolDir } from '../terminal/hooks/spool.js';
import { CLI_JS } from './paths.js';

export async function installHooks(config: Config, agents: Agent[]): Promise<void> {
  for (const agent of agents) {
    if (agent.kind !== 'claude') continue;
    const r = await installClaudeHooks(agent, spoolDir(config.messageDir, agent.name), process.execPath, CLI_JS);
    const where = relative(process.cwd(), r.file) || r.file;
    if (r.ok) log.info(`${agent.name}: receipts and turn ends from its hooks (${where})`);
    else log.warn(`${agent.name}: cannot add baton's hooks to ${where}: ${r.why}; its deliveries are confirmed from the screen only`);
    // Its MCP server too: the agent may answer with the post tool instead of a shell command.
    const m = await registerClaudeMcp(agent, process.execPath, CLI_JS, config.file);
    if (!m.ok) log.warn(`${agent.name}: cannot register baton's MCP server in ${relative(process.cwd(), m.file) || m.file}: ${m.why}`);
  }
}
