/**
 * baton's MCP server (`baton mcp`) as each agent CLI is told to start it: node and baton's CLI by absolute
 * path (PATH does not matter), the agent's name, and the conversation's config file. Claude Code
 * reads it from the agent's `.mcp.json`, Gemini CLI from its workspace settings (`mcpServers`), Codex from
 * `-c mcp_servers.baton=…` on its command line (its project config takes no such key).
 */
export interface McpServerSpec {
  command: string;
  args: string[];
}

export function batonMcpServer(node: string, cli: string, agent: string, configFile: string | null): McpServerSpec {
  return { command: node, args: [cli, 'mcp', '--as', agent, ...(configFile ? ['--config', configFile] : [])] };
}

/** The same server as a Codex `-c` override (TOML inline table). */
export function codexMcpOverride(spec: McpServerSpec): string {
  return `mcp_servers.baton={command=${JSON.stringify(spec.command)},args=[${spec.args.map((a) => JSON.stringify(a)).join(',')}]}`;
}
