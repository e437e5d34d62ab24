/** `baton init`: config.json, a folder per agent with its instructions, and messages/ (with its own .gitignore). */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import type { AgentKind, Config, Policy } from '../../config/config.js';
import { CONVERSATION_NAME, conversationName } from '../../config/conversation-name.js';
import { loadConfig, locateConfig } from '../../config/load.js';
import { createAtomic, ensureDir } from '../../lib/fsx.js';
import { KINDS } from '../../terminal/kinds.js';
import { writeInstructions } from './instructions.js';
import { sessionSuggestion } from './session-names.js';

/**
 * The config `baton init` writes: one agent per entry of `kinds` (repeated or mixed), in agents/<name>/, named
 * by kind and counted per kind (`codex1`, `codex2`); session names unique on the machine (session-names.ts).
 */
export function scaffold(kinds: AgentKind[], policy: Policy, dir: string): Record<string, unknown> {
  const counts = new Map<AgentKind, number>();
  const agents = kinds.map((kind) => {
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
    const name = `${kind === 'generic' ? 'agent' : kind}${counts.get(kind)}`;
    const command = KINDS[kind].command ?? 'REPLACE-WITH-YOUR-AGENT-COMMAND';
    return [name, { kind, cwd: `./agents/${name}`, command, session: sessionSuggestion({ baseDir: dir }, { name }) }];
  });
  // Nothing else: every other key's default lives in the schema (config/schema.ts), not pinned here.
  return { agents: Object.fromEntries(agents), turns: { policy } };
}

/** A conversation across machines (PostgreSQL bus): its database, and the machine of each agent named. */
export interface Machines {
  url: string | undefined;
  /** agent → machine (BATON_HOST there); an agent not named runs on the machine that runs `up`. */
  hosts: Record<string, string>;
}

/**
 * The scaffold with its bus and each agent's machine (docs/protocol.md §10), and the conversation's name
 * written out: left to the default (the folder's name), a copy under another name on the next machine silently
 * became another conversation (`messages 0`).
 */
export function acrossMachines(
  config: Record<string, unknown>,
  machines: Machines,
  dir: string,
): Record<string, unknown> {
  const agents = config.agents as Record<string, Record<string, unknown>>;
  const placed = Object.fromEntries(
    Object.entries(agents).map(([name, a]) => [name, machines.hosts[name] ? { ...a, host: machines.hosts[name] } : a]),
  );
  const conversation = conversationName(basename(resolve(dir)) || 'baton');
  const named = CONVERSATION_NAME.test(conversation) ? { conversation } : {}; // (over 255 once escaped: the default)
  const bus = { kind: 'postgres', ...(machines.url ? { url: machines.url } : {}), ...named };
  return { ...config, agents: placed, bus };
}

export async function makeProject(
  dir: string,
  kinds: AgentKind[],
  policy: Policy,
  opts: { force: boolean; machines?: Machines | undefined },
): Promise<
  { ok: true; file: string; config: Config; notes: { written: string[]; kept: string[] } } | { ok: false; file: string }
> {
  const { force, machines } = opts;
  await ensureDir(dir);
  const file = join(dir, 'config.json');
  const draft = scaffold(kinds, policy, dir);
  const body = `${JSON.stringify(machines ? acrossMachines(draft, machines, dir) : draft, null, 2)}\n`;
  if (force) await writeFile(file, body);
  else if (!(await createAtomic(file, body))) return { ok: false, file };
  const config = loadConfig(locateConfig(file));
  await ensureDir(config.messageDir);
  if (!existsSync(join(config.messageDir, '.gitignore')))
    await writeFile(join(config.messageDir, '.gitignore'), '# runtime data of baton\n*\n!.gitignore\n');
  for (const d of config.directions) await ensureDir(d.dir);
  return { ok: true, file, config, notes: await writeInstructions(config) };
}
