/**
 * baton's hooks for a Codex agent, in the agent's own folder: `<cwd>/.codex/hooks.json`, which
 * Codex 0.169 reads as "project config" beside the user's `~/.codex` (never touched). A user's own hooks
 * in that file are kept; baton's carry a marker so a later `baton up` replaces them, not adds.
 *
 * Codex runs a hook only once it is trusted: a new one stops the start at "Hooks need review". The trust
 * of baton's own hooks is given for the session on the command line `baton up` runs (`-c hooks.state=…`),
 * with the hash Codex computes — sha256 of the handler as compact JSON with sorted keys, measured to
 * reproduce what the TUI writes on "Trust all" — so nothing is written to the user's config. The folder is
 * trusted the same way (a project with a `.codex/` folder asks "Trust this folder?" otherwise). A `-c`
 * table merges key by key with the user's own config (measured on 0.169.0): hooks and folders they trusted
 * stay trusted in baton's sessions.
 * `--dangerously-bypass-hook-trust` would also run them, but runs every untrusted hook.
 *
 * A Stop hook must print nothing or JSON ("hook returned invalid stop hook JSON output"), and a
 * UserPromptSubmit hook's stdout is added to the model's context: `baton hook` prints nothing.
 */
import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import type { Agent } from '../../config/config.js';
import { type HookHandler, type Installed, type OurHook, placeHooks, writeJson } from './settings-file.js';
import { writeCodexRules } from './allow-rules.js';

/**
 * Codex's events for baton's, and each one's name in a trust key. A command approval fires PermissionRequest
 * (~1 s before the dialog is drawn); a tool ran, PostToolUse — after every tool call, so only while a dialog
 * is open (hookCommand's onlyIf). request_user_input has no hook of its own: the screen shows it.
 */
const EVENTS: Array<OurHook & { key: string }> = [
  { ours: 'prompt', theirs: 'UserPromptSubmit', key: 'user_prompt_submit' },
  { ours: 'stop', theirs: 'Stop', key: 'stop' },
  { ours: 'permission', theirs: 'PermissionRequest', key: 'permission_request' },
  { ours: 'ran', theirs: 'PostToolUse', key: 'post_tool_use', whileOpen: true },
];
const TIMEOUT_S = 10;

const codexHooksPath = (agent: Pick<Agent, 'cwd'>): string => join(agent.cwd, '.codex', 'hooks.json');

/** JSON with every object's keys sorted, as Codex hashes a hook for its trust (none of its keys is a number). */
const canonical = (v: unknown): string =>
  JSON.stringify(v, (_, x: unknown) =>
    x && typeof x === 'object' && !Array.isArray(x)
      ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : 1)))
      : x,
  );

/** The hash Codex keeps for a trusted hook handler (`trusted_hash`). */
function trustHash(eventKey: string, h: HookHandler): string {
  const handler = { async: h.async ?? false, command: h.command, timeout: h.timeout ?? 600, type: h.type };
  const hash = createHash('sha256').update(canonical({ event_name: eventKey, hooks: [handler] }));
  return `sha256:${hash.digest('hex')}`;
}

const tomlString = (s: string): string => JSON.stringify(s); // a TOML basic string is a JSON string

export type CodexInstalled = (Installed & { ok: false }) | { ok: true; file: string; args: string[] };

/** Put baton's hooks into the agent's .codex/hooks.json; the arguments that trust them (and the folder) for a session. */
export async function installCodexHooks(
  agent: Pick<Agent, 'name' | 'cwd'> & Partial<Pick<Agent, 'allow'>>,
  spool: string,
  node: string,
  cli: string,
): Promise<CodexInstalled> {
  const file = codexHooksPath(agent);
  const r = placeHooks(file, EVENTS, { node, cli, agent: agent.name, spool }, (_, command) => ({
    hooks: [{ type: 'command', command, timeout: TIMEOUT_S }],
  }));
  if (!r.ok) return r;
  await writeJson(file, { ...r.settings, hooks: r.hooks });
  // agents.NAME.allow (allow-rules.ts): Codex reads a trusted project's rules at start.
  await writeCodexRules(agent.cwd, agent.allow ?? []);
  // Codex names a hook by the real path of its file (and the folder by its real path).
  const real = realpathSync(file);
  const state = r.placed.map(
    (o) =>
      `${tomlString(`${real}:${o.e.key}:${o.index}:0`)}={trusted_hash=${tomlString(trustHash(o.e.key, o.group.hooks[0]!))}}`,
  );
  const project = `projects={${tomlString(realpathSync(agent.cwd))}={trust_level="trusted"}}`;
  return { ok: true, file, args: ['-c', project, '-c', `hooks.state={${state.join(',')}}`] };
}
