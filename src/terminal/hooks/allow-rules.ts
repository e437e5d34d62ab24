/**
 * `agents.NAME.allow` (config/allow.ts) in each client's own syntax, as measured on the real clients (Claude
 * Code 2.1.197 / 2.1.332, Codex 0.169.0, Gemini CLI 0.61.0) — with a rule, the dialog never opens and no
 * dialog hook fires:
 *
 * | client | where (the agent's folder) | a prefix `npm test` becomes | read |
 * |---|---|---|---|
 * | Claude Code | `.claude/settings.local.json` `permissions.allow` | `Bash(npm test:*)` | live, within 2 s |
 * | Codex | `.codex/rules/baton.rules` (a trusted project's) | `prefix_rule(pattern=["npm", "test"], decision="allow")` | at start only |
 * | Gemini CLI | the policy file `baton up` passes (`--policy`) | `[[rule]] toolName="run_shell_command" commandPrefix="npm test"` | at start |
 *
 * What a prefix does not cover, measured: Claude Code's Bash rule never covers a redirect into a file (that
 * is an `Edit(path)` rule; `Write(path)` never matched, a bare `Write` did); Codex's a heredoc or a pipe;
 * Gemini's a redirect unless the rule says `allowRedirection = true`. A client's own rule says those.
 * Never in the user's ~/.claude, ~/.codex or ~/.gemini; a user's own rules in these files are kept.
 */
import { existsSync, readFileSync } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { AllowRule } from '../../config/allow.js';
import { rulesFor } from '../../config/allow.js';
import { ensureDir, writeAtomic } from '../../lib/fsx.js';

/** Claude Code's `permissions.allow` entries for the rules. */
export const claudeAllow = (rules: readonly AllowRule[]): string[] =>
  rulesFor('claude', rules).map((r) => ('native' in r ? r.native : `Bash(${r.prefix.join(' ')}:*)`));

/** Codex's exec-policy rules (Starlark), one a line. */
export const codexRules = (rules: readonly AllowRule[]): string[] =>
  rulesFor('codex', rules).map((r) =>
    'native' in r
      ? r.native
      : `prefix_rule(pattern=[${r.prefix.map((w) => JSON.stringify(w)).join(', ')}], decision="allow")`,
  );

/** Gemini CLI's policy rules (TOML `[[rule]]` tables). */
export const geminiRules = (rules: readonly AllowRule[]): string[] =>
  rulesFor('gemini', rules).map((r) =>
    'native' in r
      ? r.native
      : [
          '[[rule]]',
          'toolName = "run_shell_command"',
          `commandPrefix = ${JSON.stringify(r.prefix.join(' '))}`,
          'decision = "allow"',
          'priority = 500',
        ].join('\n'),
  );

/** What baton added to a Claude Code agent's `permissions.allow` last time (so a rule taken out of the config goes). */
const claudeRecord = (cwd: string): string => join(cwd, '.claude', 'baton-allow.json');

/**
 * The `permissions.allow` list with the config's rules: the file's own entries (but those baton added last time
 * and the config no longer has), then the new ones; and what baton adds this time, to remember.
 */
export function mergeClaudeAllow(
  have: readonly string[],
  ours: { before: readonly string[]; now: readonly string[] },
): { allow: string[]; added: string[] } {
  const kept = have.filter((r) => !ours.before.includes(r) || ours.now.includes(r));
  const added = ours.now.filter((r) => !kept.includes(r) || ours.before.includes(r));
  return { allow: [...new Set([...kept, ...ours.now])], added };
}

export function readClaudeRecord(cwd: string): string[] {
  try {
    const v: unknown = JSON.parse(readFileSync(claudeRecord(cwd), 'utf8'));
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

export const writeClaudeRecord = (cwd: string, added: readonly string[]): Promise<void> =>
  writeOrRemove(claudeRecord(cwd), added.length ? `${JSON.stringify(added, null, 2)}\n` : null);

/** Write (or, with no rules, remove) `.codex/rules/baton.rules`: baton's own file, read by Codex at start. */
export function writeCodexRules(cwd: string, rules: readonly AllowRule[]): Promise<void> {
  const lines = codexRules(rules);
  const text = `# Written by baton up from agents.<name>.allow in config.json (replaced at each up; Codex reads it at start).\n${lines.join('\n')}\n`;
  return writeOrRemove(join(cwd, '.codex', 'rules', 'baton.rules'), lines.length ? text : null);
}

/** Write baton's own `file`, or remove it when there is nothing to say. */
async function writeOrRemove(file: string, text: string | null): Promise<void> {
  if (text === null) {
    if (existsSync(file)) await unlink(file).catch(() => {});
    return;
  }
  await ensureDir(dirname(file));
  await writeAtomic(file, text);
}
