/**
 * baton's hooks in a Claude Code agent's own project settings: `<cwd>/.claude/settings.local.json`,
 * which Claude Code merges with the user's `~/.claude/settings.json` and the project's `settings.json` —
 * so nothing of the user's is touched, and a user's own hooks in that file are kept. Written before the
 * agent starts: Claude Code 2.1.197 reads hooks only at start (measured).
 *
 * Each hook runs `baton hook EVENT` (cli/hook.ts) with a timeout, so a hook can never hold the agent up
 * for long; baton's own entries carry a marker comment so a later `baton up` replaces them, not adds.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Agent } from '../../config/config.js';
import { claudeAllow, mergeClaudeAllow, readClaudeRecord, writeClaudeRecord } from './allow-rules.js';
import { batonMcpServer } from './mcp-server.js';
import { type Installed, objectAt, type OurHook, placeHooks, writeJson } from './settings-file.js';

/**
 * Claude Code's events for baton's. A dialog: PermissionRequest (a tool's permission, and AskUserQuestion), and
 * the Notification `permission_prompt` ~6 s later, which is the only hook auto mode (2.1.332's default) fires
 * for its approvals; its matcher keeps the idle reminders out. A tool ran (the dialog closed): PostToolUse,
 * PostToolUseFailure — after every tool call, so only while a dialog is open (hookCommand's onlyIf).
 */
const EVENTS: OurHook[] = [
  { ours: 'prompt', theirs: 'UserPromptSubmit' },
  { ours: 'stop', theirs: 'Stop' },
  { ours: 'permission', theirs: 'PermissionRequest' },
  { ours: 'permission', theirs: 'Notification', matcher: 'permission_prompt|elicitation_dialog' },
  { ours: 'ran', theirs: 'PostToolUse', whileOpen: true },
  { ours: 'ran', theirs: 'PostToolUseFailure', whileOpen: true },
];

const settingsPath = (agent: Pick<Agent, 'cwd'>): string => join(agent.cwd, '.claude', 'settings.local.json');

/** Put baton's hooks into the agent's settings.local.json, keeping everything else in it. */
export async function installClaudeHooks(
  agent: Pick<Agent, 'name' | 'cwd'> & Partial<Pick<Agent, 'allow'>>,
  spool: string,
  node: string,
  cli: string,
): Promise<Installed> {
  const r = placeHooks(settingsPath(agent), EVENTS, { node, cli, agent: agent.name, spool }, (e, command) => ({
    ...(e.matcher ? { matcher: e.matcher } : {}),
    hooks: [{ type: 'command', command, timeout: 10 }],
  }));
  if (!r.ok) return r;
  const { settings, hooks } = r;
  // baton's MCP server (.mcp.json, registerClaudeMcp): enabled without a question, its tools allowed.
  const enabled = union(settings.enabledMcpjsonServers, ['baton']);
  const permissions = objectAt(settings, 'permissions');
  // agents.NAME.allow (allow-rules.ts): the dialogs a person would always approve never open.
  const { allow, added } = mergeClaudeAllow(union(permissions.allow, MCP_TOOLS), {
    before: readClaudeRecord(agent.cwd),
    now: claudeAllow(agent.allow ?? []),
  });
  const file = settingsPath(agent);
  await writeJson(file, { ...settings, enabledMcpjsonServers: enabled, permissions: { ...permissions, allow }, hooks });
  await writeClaudeRecord(agent.cwd, added);
  return { ok: true, file };
}

const MCP_TOOLS = ['mcp__baton__post', 'mcp__baton__status', 'mcp__baton__transcript'];
const union = (have: unknown, add: string[]): string[] => [
  ...new Set([...(Array.isArray(have) ? have.filter((x): x is string => typeof x === 'string') : []), ...add]),
];

/** Register `baton mcp` as the MCP server "baton" in the agent's own `.mcp.json` (others kept). */
export async function registerClaudeMcp(
  agent: Pick<Agent, 'name' | 'cwd'>,
  node: string,
  cli: string,
  configFile: string | null,
): Promise<Installed> {
  const file = join(agent.cwd, '.mcp.json');
  let current: Record<string, unknown> = {};
  if (existsSync(file)) {
    try {
      current = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    } catch (err) {
      return { ok: false, file, why: `it is not valid JSON (${(err as Error).message}); left as it is` };
    }
  }
  const baton = batonMcpServer(node, cli, agent.name, configFile);
  await writeJson(file, { ...current, mcpServers: { ...objectAt(current, 'mcpServers'), baton } });
  return { ok: true, file };
}
