/**
 * The settings files baton adds its hooks to, in an agent's own folder (Claude Code's `.claude/settings.local.json`,
 * Codex's `.codex/hooks.json`, Gemini CLI's `.gemini/settings.json`): all three hold `hooks: {Event: [{matcher?, hooks:
 * [{type, command, …}]}]}`. A user's file is read, never clobbered: one that is not a JSON object is left as it is,
 * with why; the user's own hooks are kept, and baton's (marked by MARK in their command) replaced, not added again.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { HookEvent } from '../../core/hook-note.js';
import { ensureDir, writeAtomic } from '../../lib/fsx.js';
import { shellQuote } from '../../lib/shell.js';
import { dialogFlag } from './spool.js';

/** Marks baton's own hook commands (a shell comment at the end). */
const MARK = '# baton-hook';

/** What installing baton's hooks in one file did. */
export type Installed = { ok: true; file: string } | { ok: false; file: string; why: string };

/**
 * The command line a hook runs (`sh -c`), the same for the three CLIs: node and baton's CLI by absolute
 * path, so PATH does not matter. It exits 0 whatever happens (`|| true`: node or baton gone), since an
 * exit of 2 blocks the prompt in Claude Code and in Gemini CLI.
 */
function hookCommand(h: {
  node: string;
  cli: string;
  event: HookEvent;
  agent: string;
  spool: string;
  /**
   * Run node only while this file exists (the shell's own test: ~1 ms instead of node's ~60). A tool-ran
   * hook fires after every tool call; baton needs it only while a dialog is open (daemon/dialogs.ts sets it).
   */
  onlyIf?: string;
}): string {
  const q = shellQuote;
  const { node, cli, event, agent, spool } = h;
  const run = `${q(node)} ${q(cli)} hook ${event} --agent ${q(agent)} --spool ${q(spool)}`;
  return `${h.onlyIf ? `[ -e ${q(h.onlyIf)} ] && ${run}` : run} || true ${MARK}`;
}

/** One of baton's hooks in a client's settings: which of its events runs which of baton's, and how. */
export interface OurHook {
  ours: HookEvent;
  /** The client's own event name. */
  theirs: string;
  /** The client's matcher, where it has one that spares runs baton does not need. */
  matcher?: string;
  /** Run only while the agent has a dialog open (hookCommand's onlyIf). */
  whileOpen?: boolean;
}

export interface HookHandler {
  type: string;
  command?: string;
  timeout?: number;
  async?: boolean;
  name?: string;
}

export interface HookGroup {
  matcher?: string;
  hooks: HookHandler[];
}

/** The file's JSON object (empty when there is no file yet), or why it is left alone. */
function readSettings(file: string): { ok: true; value: Record<string, unknown> } | { ok: false; why: string } {
  if (!existsSync(file)) return { ok: true, value: {} };
  try {
    const v: unknown = JSON.parse(readFileSync(file, 'utf8'));
    if (!v || typeof v !== 'object' || Array.isArray(v)) return { ok: false, why: 'it is not a JSON object' };
    return { ok: true, value: v as Record<string, unknown> };
  } catch (err) {
    return { ok: false, why: `it is not valid JSON (${(err as Error).message}); left as it is` };
  }
}

/** `o[key]` when it is an object, else an empty one. */
export const objectAt = (o: Record<string, unknown>, key: string): Record<string, unknown> =>
  (o[key] && typeof o[key] === 'object' ? o[key] : {}) as Record<string, unknown>;

/** An event's groups: the user's own (baton's earlier ones dropped), then `ours`. Returns where ours is. */
function withOurs(groups: unknown, ours: HookGroup): { groups: HookGroup[]; index: number } {
  const kept = (Array.isArray(groups) ? (groups as HookGroup[]) : [])
    .map((g) => ({ ...g, hooks: (g.hooks ?? []).filter((h) => !h.command?.includes(MARK)) }))
    .filter((g) => g.hooks.length > 0);
  return { groups: [...kept, ours], index: kept.length };
}

/**
 * `file`'s settings with baton's hook for each of `events` put in (`group` wraps its command in the client's
 * group), and where each went in its event's groups; or why the file is left alone.
 */
export function placeHooks<E extends OurHook>(
  file: string,
  events: E[],
  to: { node: string; cli: string; agent: string; spool: string },
  group: (e: E, command: string) => HookGroup,
):
  | { ok: true; settings: Record<string, unknown>; hooks: Record<string, unknown>; placed: Placed<E>[] }
  | (Installed & { ok: false }) {
  const read = readSettings(file);
  if (!read.ok) return { ok: false, file, why: read.why };
  const hooks = { ...objectAt(read.value, 'hooks') } as Record<string, HookGroup[]>;
  const placed = events.map((e) => {
    const onlyIf = e.whileOpen ? { onlyIf: dialogFlag(to.spool) } : {};
    const ours = group(e, hookCommand({ ...to, event: e.ours, ...onlyIf }));
    const merged = withOurs(hooks[e.theirs], ours);
    hooks[e.theirs] = merged.groups;
    return { e, group: ours, index: merged.index };
  });
  return { ok: true, settings: read.value, hooks, placed };
}

/** Where baton's hook for one event went: its group, at `index` among the event's groups. */
type Placed<E> = { e: E; group: HookGroup; index: number };

/** Write `value` as the whole of `file` (2-space JSON), making its folder first. */
export async function writeJson(file: string, value: unknown): Promise<void> {
  await ensureDir(dirname(file));
  await writeAtomic(file, `${JSON.stringify(value, null, 2)}\n`);
}
