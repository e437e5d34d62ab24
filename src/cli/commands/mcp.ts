import { noPositionals, UsageError, type CommandSpec } from '../command.js';

export const mcp: CommandSpec = {
  usage: 'mcp [--as AGENT]',
  summary: 'an MCP server on stdin/stdout: the agent answers with a tool (post, status, transcript)',
  options: { as: { type: 'string' } },
  examples: ['baton mcp --as claude1', 'claude mcp add baton -- baton mcp --as claude1'],
  help: `
Speaks the Model Context Protocol on stdin/stdout, for an agent CLI to start. baton init and up register
it in each agent's own folder: Claude Code's .mcp.json, Gemini CLI's .gemini/settings.json, and Codex's
command line (-c mcp_servers.baton=…). Its tools:
  post         the agent's reply, written as "baton post" writes it (content, to, type, subject)
  status       whose turn it is, what waits and why
  transcript   the conversation so far (last: only the last N)

  --as AGENT   the agent it speaks for (default: $BATON_AGENT)`,
  async run(inv) {
    const { log } = await import('../../lib/log.js');
    noPositionals(inv);
    // an agent's pane has no database URL
    const config = (await import('../inputs.js')).configFrom(inv, { busUrl: 'optional' });
    const agent = (inv.values.as as string | undefined) ?? process.env.BATON_AGENT;
    if (agent !== undefined && !config.agents[agent])
      throw new UsageError(`unknown agent "${agent}" (agents: ${config.order.join(', ')})`);
    log.level = 0; // stdout is the protocol's: nothing of baton's own may appear on it
    const { serveMcp } = await import('../../app/mcp/mcp.js'); // the SDK loads only for this command
    await serveMcp(config, agent);
    return 0;
  },
};
