import { installHooks } from '../../app/hooks.js';
import { relative, resolve } from 'node:path';
import { makeProject } from '../../app/scaffold.js';
import { AGENT_KINDS, POLICIES, type AgentKind, type Policy } from '../../config/config.js';
import { log } from '../../lib/log.js';
import { KINDS } from '../../terminal/kinds.js';
import { UsageError, type CommandSpec } from '../command.js';

export const init: CommandSpec = {
  usage: 'init [DIR] [--kind KIND] [--agents N] [--policy P] [--force]',
  summary: 'set up a conversation in any folder: config.json, agents/*, messages/',
  options: {
    kind: { type: 'string' },
    agents: { type: 'string' },
    policy: { type: 'string' },
    force: { type: 'boolean' },
  },
  examples: [
    'baton init myproject',
    'baton init review --kind codex --agents 3 --policy handoff',
    'baton init mixed --kind claude,codex,gemini',
  ],
  help: `
Writes DIR/config.json (DIR defaults to the current folder), a working folder per agent with its
instructions file (CLAUDE.md, AGENTS.md, …), and messages/ (ignored by git through its own .gitignore).
Then: cd DIR && baton up   (or baton up --demo to try it with the bundled demo agents).

  --kind KIND     ${AGENT_KINDS.join(', ')} (default claude); a comma list mixes kinds, one agent
                  each (claude,codex,gemini: claude1 → codex1 → gemini1)
  --agents N      how many agents, 2 to 16 (default 2, or one per listed kind); named <kind>1, <kind>2, …
                  (agent1… for generic)
  --policy P      ${POLICIES.join(', ')} (default alternate for two agents, round_robin for more)
  --force         replace an existing config.json (agents' own instructions files are still kept)`,
  async run(inv) {
    if (inv.positionals.length > 1) throw new UsageError('give at most one folder');
    const dir = resolve(inv.positionals[0] ?? '.');
    const listed = ((inv.values.kind as string | undefined) ?? 'claude').split(',').map((k) => k.trim());
    const unknown = listed.find((k) => !(AGENT_KINDS as readonly string[]).includes(k));
    if (unknown !== undefined)
      throw new UsageError(
        `--kind must be one of ${AGENT_KINDS.join(', ')} (or a comma list of them), not "${unknown}"`,
      );
    const n = Number((inv.values.agents as string | undefined) ?? (listed.length > 1 ? listed.length : 2));
    if (!Number.isInteger(n) || n < 2 || n > 16) throw new UsageError('--agents must be a whole number from 2 to 16');
    if (listed.length > 1 && n !== listed.length)
      throw new UsageError(
        `--kind lists ${listed.length} kinds, one agent each: leave out --agents or give ${listed.length}`,
      );
    const kinds = (listed.length > 1 ? listed : Array<string>(n).fill(listed[0]!)) as AgentKind[];
    const kind = [...new Set(kinds)].join(', ');
    const policy = (inv.values.policy as string | undefined) ?? (n === 2 ? 'alternate' : 'round_robin');
    if (!(POLICIES as readonly string[]).includes(policy))
      throw new UsageError(`--policy must be one of ${POLICIES.join(', ')}`);
    if (policy === 'alternate' && n !== 2)
      throw new UsageError('the alternate policy is for exactly two agents; use round_robin or handoff');

    const made = await makeProject(dir, kinds, policy as Policy, Boolean(inv.values.force));
    if (!made.ok) {
      log.error(`${made.file} already exists; edit it, or run baton init --force to replace it`);
      return 1;
    }
    const { file, config, notes } = made;
    // Claude Code, Codex and Gemini agents get baton's hooks in their own folders now (up renews them).
    await installHooks(
      config,
      config.order.map((a) => config.agents[a]!),
    );
    const rel = (p: string) => relative(process.cwd(), p) || '.';
    const sessions = config.order.map((a) => config.agents[a]!.session).join(', ');
    const cd = dir === process.cwd() ? '' : `cd ${rel(dir)} && `;
    process.stdout.write(
      `${[
        `wrote ${rel(file)} (${n} ${kind} agents, ${policy})`,
        ...notes.written.map((f) => `wrote ${rel(f)}`),
        ...notes.kept.map((f) => `kept your own ${rel(f)}`),
        `made ${rel(config.messageDir)}/ with ${config.directions.map((d) => d.name).join(', ')}`,
        ...(kinds.every((k) => KINDS[k].command)
          ? []
          : ['edit each agent\'s "command" in config.json: the generic kind has no default']),
        '',
        `tmux sessions: ${sessions} (plus a watcher session for the daemon)`,
        '',
        `next: ${cd}baton up --demo      (the bundled demo agents, to see it work)`,
        `  or: ${cd}baton up --topic "what they should talk about"`,
      ].join('\n')}\n`,
    );
    return 0;
  },
};
