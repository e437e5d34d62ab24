import { relative, resolve } from 'node:path';
import type { Machines } from '../../app/up/scaffold.js';
import { AGENT_KINDS } from '../../config/agent-kinds.js';
import type { AgentKind, Config, Policy } from '../../config/config.js';
import { POLICIES } from '../../core/turns.js';
import { optionsOf, UsageError, type CommandSpec } from '../command.js';

export const init: CommandSpec = {
  usage:
    'init [DIR] [--kind KIND] [--agents N] [--policy P] [--force] [--bus postgres] [--url URL] [--host AGENT=MACHINE]',
  summary: 'set up a conversation in any folder: config.json, agents/*, messages/',
  options: {
    ...optionsOf('string', 'kind', 'agents', 'policy', 'bus', 'url'),
    force: { type: 'boolean' },
    host: { type: 'string', multiple: true },
  },
  examples: [
    'baton init myproject',
    'baton init review --kind codex --agents 3 --policy handoff',
    'baton init mixed --kind claude,codex,gemini',
    'baton init pair --bus postgres --url postgres://baton@db.example/baton --host claude1=alpha --host claude2=beta',
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
  --force         replace an existing config.json (agents' own instructions files are still kept)
  --bus postgres  a conversation across machines over PostgreSQL (default: files, on this machine);
                  the conversation is named after DIR in config.json (bus.conversation), so a copy
                  of the folder under another name on the next machine joins the same one
  --url URL       the database (postgres://user@host:5432/db); without it, BATON_BUS_URL gives it
                  on each machine. Keep the password out of it: PGPASSWORD or ~/.pgpass
  --host AGENT=MACHINE   (repeatable, with --bus postgres) the machine that runs AGENT: the name it
                  gets from BATON_HOST (else its hostname); agents not named run where "baton up" runs`,
  async run(inv) {
    const { installHooks } = await import('../../app/up/hooks.js');
    const { makeProject, scaffold } = await import('../../app/up/scaffold.js');
    const { log } = await import('../../lib/log.js');
    const { KINDS } = await import('../../terminal/kinds.js');
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

    const machines = machinesFrom(inv.values, Object.keys(scaffold(kinds, policy as Policy, dir).agents as object));
    const made = await makeProject(dir, kinds, policy as Policy, { force: Boolean(inv.values.force), machines });
    if (!made.ok) {
      log.error(`${made.file} already exists; edit it, or run baton init --force to replace it`);
      return 1;
    }
    const { file, config, notes } = made;
    // Claude Code, Codex and Gemini agents get baton's hooks in their own folders now (up renews them).
    const agents = config.order.map((a) => config.agents[a]!);
    await installHooks(config, agents);
    const rel = (p: string) => relative(process.cwd(), p) || '.';
    const sessions = agents.map((a) => a.session).join(', ');
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
        `tmux sessions: ${sessions} (the daemon runs in baton-daemon, the machine's, shared by its conversations)`,
        '',
        ...(machines
          ? nextAcross(config, cd)
          : [
              `next: ${cd}baton up --demo      (the bundled demo agents, to see it work)`,
              `  or: ${cd}baton up --topic "what they should talk about"`,
            ]),
      ].join('\n')}\n`,
    );
    return 0;
  },
};

/** A machine's name as config.json takes it (agents.<name>.host). */
const MACHINE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** `--bus`, `--url` and `--host`: the conversation across machines, or undefined for the files bus. */
function machinesFrom(values: Record<string, unknown>, agents: string[]): Machines | undefined {
  const bus = (values.bus as string | undefined) ?? 'files';
  const url = values.url as string | undefined;
  const pairs = (values.host as string[] | undefined) ?? [];
  if (bus !== 'files' && bus !== 'postgres') throw new UsageError(`--bus must be files or postgres, not "${bus}"`);
  if (bus === 'files') {
    if (url !== undefined || pairs.length) throw new UsageError('--url and --host are for --bus postgres');
    return undefined;
  }
  if (url !== undefined && !/^postgres(ql)?:\/\//.test(url)) throw new UsageError('--url must be a postgres:// URL');
  if (url === undefined && !process.env.BATON_BUS_URL)
    throw new UsageError('--bus postgres needs --url URL (or BATON_BUS_URL set on every machine)');
  const hosts: Record<string, string> = {};
  for (const pair of pairs) {
    const m = /^([^=]+)=(.*)$/.exec(pair);
    if (!m) throw new UsageError(`--host takes AGENT=MACHINE, not "${pair}"`);
    const [, agent, machine] = m as unknown as [string, string, string];
    if (!agents.includes(agent))
      throw new UsageError(`--host ${pair}: no agent "${agent}" (agents: ${agents.join(', ')})`);
    if (!MACHINE.test(machine))
      throw new UsageError(`--host ${pair}: a machine name uses letters, digits, ".", "_" and "-" (max 64)`);
    hosts[agent] = machine;
  }
  return { url, hosts };
}

/** What each machine runs next: its own `up`, under the name the config gives it. */
function nextAcross(config: Config, cd: string): string[] {
  const by = new Map<string, string[]>();
  for (const a of config.order) by.set(config.agents[a]!.host, [...(by.get(config.agents[a]!.host) ?? []), a]);
  return [
    'next, on each machine (with this folder and config.json there too):',
    ...[...by].map(
      ([host, agents]) => `  on ${host}: ${cd}BATON_HOST=${host} baton up --demo   (${agents.join(', ')})`,
    ),
  ];
}
