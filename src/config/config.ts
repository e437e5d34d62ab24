/** config.json resolved (paths, defaults) into the `Config` baton uses; its schema: schema.ts; finding it: load.ts. */
import { hostname } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { HOOK_KINDS, hasHooks } from '../core/hook-note.js';
import { formatIssues, keysAt } from '../core/issues.js';
import type { Price } from '../core/pricing.js';
import type { ReplyMode } from '../core/receipt.js';
import { allowedPairs, type Policy } from '../core/turns.js';
import { conversationName } from './conversation-name.js';

export type { Policy };
export { AGENT_KINDS, type AgentKind, ConfigFileSchema, type NotifySinkConfig } from './schema.js';
import type { AgentKind, ConfigFile, DeliveryConfig, InboxConfig, NotifySinkConfig, TurnsConfig } from './schema.js';
import { ConfigFileSchema } from './schema.js';
import { type AllowRule, allowProblems } from './allow.js';

export interface Agent {
  name: string;
  kind: AgentKind;
  /** Absolute working directory of the agent's pane. */
  cwd: string;
  command: string | undefined;
  session: string;
  /** Exact pane target from the config, if one was given (`%3`, `=work:1.0`). */
  target: string | undefined;
  env: Record<string, string>;
  /** The machine whose tmux runs it (docs/protocol.md §10): this machine unless the config says otherwise. */
  host: string;
  reply: ReplyMode;
  /** Pause once its turns cost this much in USD (0: no limit). */
  maxCostUsd: number;
  /** What it may do without a dialog (allow.ts), written into its client's permission settings at `up`. */
  allow: AllowRule[];
}

type BusConfig = { kind: 'files' } | { kind: 'postgres'; url: string; conversation: string; schema: string };

export interface Direction {
  /** Folder name under message_dir. */
  name: string;
  from: string;
  to: string;
  /** Absolute path of the folder. */
  dir: string;
}

export interface Config {
  /** Absolute path of the config file, or null for the embedded default. */
  file: string | null;
  baseDir: string;
  messageDir: string;
  agents: Record<string, Agent>;
  /** Agent names in config order (round_robin follows it). */
  order: string[];
  directions: Direction[];
  firstTurn: string;
  turns: TurnsConfig;
  inbox: InboxConfig;
  delivery: DeliveryConfig;
  bus: BusConfig;
  /** Who is told when a person is needed or it is over (docs/protocol.md §12); empty: nobody. */
  notify: NotifySinkConfig[];
  /** Prices per model from config.json, over the table baton ships (core/pricing.ts). */
  pricing: Record<string, Price>;
  /** This machine's name: BATON_HOST, else its hostname (docs/protocol.md §10). */
  host: string;
}

/** The machine that runs an agent (docs/protocol.md §10); a name that is not an agent: this machine. */
export const hostOf = (config: Pick<Config, 'host' | 'agents'>, agent: string | undefined): string =>
  agent !== undefined && Object.hasOwn(config.agents, agent) ? config.agents[agent]!.host : config.host;

/** Is this agent on this machine (the only agents this machine's daemon types into)? */
export const isLocal = (config: Pick<Config, 'host' | 'agents'>, agent: string): boolean =>
  hostOf(config, agent) === config.host;

/** The original tool named its two agents claude1 and claude2; a config without `agents` gets them. */
const LEGACY_AGENTS = {
  claude1: { kind: 'claude', cwd: './agents/claude1', command: 'claude' },
  claude2: { kind: 'claude', cwd: './agents/claude2', command: 'claude' },
} as const;

/**
 * The conversation baton runs when no config file exists: the shipped config.json (a unit test holds them
 * equal). Only what is not a default (every default is in schema.ts, a kind's in kinds.ts): a pinned
 * `delivery.enter_delay_ms` here kept the demo from the Enter rules measured per kind.
 */
export const DEFAULT_CONFIG = {
  agents: LEGACY_AGENTS,
  directions: { c1_to_c2: ['claude1', 'claude2'], c2_to_c1: ['claude2', 'claude1'] },
} as const;

/** The problem of a PostgreSQL config with no URL (an agent's `baton post` loads one anyway: load.ts). */
export const NO_URL_PROBLEM = 'bus.url: the postgres bus needs a URL';

/** `invalid` false: the file could not be read at all (one line, not a list of problems). */
export class ConfigError extends Error {
  override name = 'ConfigError';
  constructor(
    readonly source: string,
    readonly problems: string[],
    readonly invalid = true,
  ) {
    super(
      invalid
        ? `${source}: invalid config\n${problems.map((p) => `  - ${p}`).join('\n')}`
        : `${source}: ${problems.join('; ')}`,
    );
  }

  /** The whole error in one line (`baton status` with a broken config.json, the daemon's log). */
  get line(): string {
    return `${this.source}: ${this.invalid ? 'invalid config: ' : ''}${this.problems.join('; ')}`;
  }
}

/** Parse and resolve a config object. `file` is used in error messages and to resolve relative paths. */
export function parseConfig(raw: unknown, file: string | null, baseDir: string, env = process.env): Config {
  const source = file ?? 'embedded default config';
  const parsed = ConfigFileSchema.safeParse(raw);
  // A mistyped key is told the closest one config.json takes at its path (`turns.max_turn`).
  const problems = parsed.success ? [] : formatIssues(parsed.error.issues, (p) => keysAt(ConfigFileSchema, p));
  if (!parsed.success) throw new ConfigError(source, problems);
  const c = parsed.data;
  const abs = (p: string) => (isAbsolute(p) ? p : resolve(baseDir, p));
  const host = env.BATON_HOST || hostname();
  const agents = agentsOf(c, { abs, host }, problems);
  const order = Object.keys(agents);
  const known = (n: string) => Object.hasOwn(agents, n);
  const directions = directionEntries(c, order, problems).map(([name, [from, to]]) => {
    const key = `directions.${name}`;
    if (!known(from)) problems.push(`${key}: unknown agent "${from}"`);
    if (!known(to)) problems.push(`${key}: unknown agent "${to}"`);
    if (from === to) problems.push(`${key}: an agent cannot send to itself`);
    return { name, from, to, dir: resolve(abs(c.message_dir), name) };
  });
  const policy = c.turns.policy;
  if (policy === 'alternate' && order.length !== 2)
    problems.push(
      `turns.policy: "alternate" needs exactly two agents (found ${order.length}); use "round_robin" or "handoff"`,
    );
  if (policy !== 'handoff' && problems.length === 0)
    for (const [from, to] of allowedPairs({ policy, agents: order }))
      if (!directions.some((d) => d.from === from && d.to === to))
        problems.push(`directions: no folder for ${from} → ${to}, which the ${policy} policy needs`);
  if (c.first_turn && !known(c.first_turn)) problems.push(`first_turn: unknown agent "${c.first_turn}"`);
  if (c.turns.closing && !known(c.turns.closing.agent))
    problems.push(`turns.closing.agent: unknown agent "${c.turns.closing.agent}"`);
  for (const [i, n] of (c.turns.stop_from ?? []).entries())
    if (!known(n)) problems.push(`turns.stop_from.${i}: unknown agent "${n}"`);
  const bus = busOf(c, { baseDir, env }, problems);
  if (problems.length) throw new ConfigError(source, problems);
  const firstTurn = c.first_turn ?? order[0] ?? '';
  const where = { file, baseDir, messageDir: abs(c.message_dir), agents, order, directions, firstTurn };
  const { turns, inbox, delivery, notify, pricing } = c;
  return { ...where, turns, inbox, delivery, bus, notify, pricing, host };
}

/** Each agent resolved, in config order; what is wrong with them goes to `problems`. */
function agentsOf(c: ConfigFile, at: { abs: (p: string) => string; host: string }, problems: string[]) {
  const entries = Object.entries(c.agents ?? LEGACY_AGENTS);
  if (entries.length < 2) problems.push('agents: at least two agents are needed');
  const agents: Record<string, Agent> = {};
  const sessions = new Map<string, string>();
  for (const [name, a] of entries) {
    if (a.session && a.target) problems.push(`agents.${name}: give either session or target, not both`);
    const session = a.session ?? name;
    const other = sessions.get(session);
    if (other) problems.push(`agents.${name}.session: "${session}" is already the session of ${other}`);
    sessions.set(session, name);
    if (session === 'watcher') problems.push(`agents.${name}: the session name "watcher" is used by the daemon`);
    const target = a.target && (a.target.startsWith('%') || a.target.startsWith('=') ? a.target : `=${a.target}`);
    agents[name] = {
      name,
      kind: a.kind,
      cwd: at.abs(a.cwd ?? `./agents/${name}`),
      command: a.command,
      session,
      target,
      env: a.env ?? {},
      host: a.host ?? at.host,
      reply: a.reply,
      maxCostUsd: a.max_cost_usd,
      allow: a.allow ?? [],
    };
    problems.push(...allowProblems(`agents.${name}.allow`, a.kind, a.allow ?? []));
    if (a.reply !== 'post' && !hasHooks(a.kind))
      problems.push(
        `agents.${name}.reply: "${a.reply}" needs an agent whose hooks baton reads (kind ${HOOK_KINDS.join(', ')}), not "${a.kind}"`,
      );
  }
  return agents;
}

/** Directions: explicit, or the original tool's two keys, or one folder per pair the policy allows. */
function directionEntries(c: ConfigFile, order: string[], problems: string[]): [string, readonly [string, string]][] {
  if (c.directions) {
    if (c.c1_to_c2 || c.c2_to_c1) problems.push('c1_to_c2/c2_to_c1: use either these keys or directions, not both');
    return Object.entries(c.directions);
  }
  if (!c.c1_to_c2 && !c.c2_to_c1)
    return allowedPairs({ policy: c.turns.policy, agents: order }).map(([f, t]) => [`${f}_to_${t}`, [f, t]] as const);
  const [a1, a2] = order;
  if (order.length !== 2 || !a1 || !a2) {
    problems.push('c1_to_c2/c2_to_c1: these keys need exactly two agents');
    return [];
  }
  return [
    [c.c1_to_c2 ?? `${a1}_to_${a2}`, [a1, a2]],
    [c.c2_to_c1 ?? `${a2}_to_${a1}`, [a2, a1]],
  ];
}

function busOf(c: ConfigFile, at: { baseDir: string; env: NodeJS.ProcessEnv }, problems: string[]): BusConfig {
  if (c.bus.kind !== 'postgres') return { kind: 'files' };
  const url = at.env.BATON_BUS_URL || c.bus.url;
  if (!url) problems.push(`${NO_URL_PROBLEM} (here, or in BATON_BUS_URL)`);
  const folder = at.baseDir.split(/[\\/]/).filter(Boolean).pop() ?? 'baton';
  return {
    kind: 'postgres',
    url: url ?? '',
    conversation: c.bus.conversation ?? conversationName(folder),
    schema: c.bus.schema,
  };
}
