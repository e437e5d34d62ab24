/**
 * baton's hooks for a Gemini CLI agent, in the agent's own folder: `<cwd>/.gemini/settings.json`
 * (workspace settings, merged by Gemini 0.61 over the user's `~/.gemini`, which is never touched; a user's
 * own settings and hooks there are kept, baton's replaced by a later `baton up`). BeforeAgent reports the
 * prompt, AfterAgent the end of the turn.
 *
 * Gemini runs workspace hooks only in a trusted folder (otherwise "Project hooks disabled because the
 * folder is not trusted"), and asks "Do you trust the files in this folder?" at start. `baton up` trusts
 * the agent's folder for that session with GEMINI_CLI_TRUST_WORKSPACE=true instead of writing the user's
 * trustedFolders.json. The reply command is allowed by a policy file passed with `--policy`: a rule for
 * the `baton post` prefix (heredoc included), while every other shell command still asks; or the agent
 * answers with the post tool of baton's MCP server, registered here too (`mcpServers.baton`, trusted).
 *
 * Session cleanup is turned off in that file (`general.sessionRetention.enabled: false`): with it on (0.61's
 * default), every start of the CLI in the folder under another session ID — a fresh start, a failed
 * `--resume`, even `--list-sessions` — deletes a chat file "without resumable content" together with every
 * other file of the same 8-character short ID, and a resume in a later minute leaves exactly such a stub
 * beside the conversation: the next start deleted the conversation itself (measured), and `baton up`'s
 * resume found nothing. Off, the stubs pile up (one per resume in a new minute) and nothing is lost.
 *
 * A hook that exits 2 with any output blocks the prompt (and an AfterAgent one re-prompts the model with
 * its stderr): `baton hook` always exits 0, and its command line ends in `|| true` should node be gone.
 */
import { join } from 'node:path';
import type { Agent } from '../../config/config.js';
import { writeAtomic } from '../../lib/fsx.js';
import { type Installed, objectAt, type OurHook, placeHooks, writeJson } from './settings-file.js';
import { geminiRules } from './allow-rules.js';
import { batonMcpServer } from './mcp-server.js';

/**
 * Gemini CLI's events for baton's. A dialog: Notification (`ToolPermission`: a shell command, an edit, ask_user),
 * 20–180 ms before the box is drawn. A tool ran: AfterTool — after every tool call, so only while a dialog is
 * open (hookCommand's onlyIf).
 */
const EVENTS: OurHook[] = [
  { ours: 'prompt', theirs: 'BeforeAgent' },
  { ours: 'stop', theirs: 'AfterAgent' },
  { ours: 'permission', theirs: 'Notification' },
  { ours: 'ran', theirs: 'AfterTool', whileOpen: true },
];

const geminiSettingsPath = (agent: Pick<Agent, 'cwd'>): string => join(agent.cwd, '.gemini', 'settings.json');
const geminiPolicyPath = (agent: Pick<Agent, 'cwd'>): string => join(agent.cwd, '.gemini', 'baton-policy.toml');

const POLICY = `# Written by baton: this agent may reply with \`baton post\` without a question; any other shell
# command still asks. Passed to Gemini CLI by \`baton up\` (--policy).
[[rule]]
toolName = "run_shell_command"
commandPrefix = "baton post"
decision = "allow"
priority = 500
allowRedirection = true
`;

export type GeminiInstalled =
  | (Installed & { ok: false })
  | { ok: true; file: string; args: string[]; env: Record<string, string> };

export async function installGeminiHooks(
  agent: Pick<Agent, 'name' | 'cwd'> & Partial<Pick<Agent, 'allow'>>,
  to: { spool: string; node: string; cli: string; configFile?: string | null },
): Promise<GeminiInstalled> {
  const { spool, node, cli, configFile = null } = to;
  const r = placeHooks(geminiSettingsPath(agent), EVENTS, { node, cli, agent: agent.name, spool }, (e, command) => ({
    matcher: '*',
    hooks: [{ type: 'command', name: `baton-${e.ours}`, command }],
  }));
  if (!r.ok) return r;
  const { settings, hooks } = r;
  // baton's MCP server too (its tools trusted: no question before a post), beside the user's own servers.
  const baton = { ...batonMcpServer(node, cli, agent.name, configFile), trust: true };
  const mcpServers = { ...objectAt(settings, 'mcpServers'), baton };
  const general = objectAt(settings, 'general');
  const kept = { ...general, sessionRetention: { ...objectAt(general, 'sessionRetention'), enabled: false } };
  const file = geminiSettingsPath(agent);
  await writeJson(file, { ...settings, general: kept, mcpServers, hooks });
  const policy = geminiPolicyPath(agent);
  // agents.NAME.allow (allow-rules.ts): more rules of the same kind in the same file.
  const allowed = geminiRules(agent.allow ?? []);
  const more = `\n# From agents.${agent.name}.allow in config.json:\n${allowed.join('\n\n')}\n`;
  await writeAtomic(policy, allowed.length ? `${POLICY}${more}` : POLICY);
  return { ok: true, file, args: ['--policy', policy], env: { GEMINI_CLI_TRUST_WORKSPACE: 'true' } };
}
