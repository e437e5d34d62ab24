/**
 * `baton ls`: every conversation the machine's daemons serve (one registry per machine name, identity.ts), from
 * any folder — each one's `status` summed up in a row — and this machine's conversations with a daemon of their
 * own (up/own-daemon.ts), marked so. One that cannot be read is a row with its problem, never the list's end.
 */
import { hostname } from 'node:os';
import { loadConfig } from '../../config/load.js';
import { dollars } from '../../core/budget.js';
import { collectStatus } from './status.js';
import { machineDaemon, type MachineHolder } from '../machine/daemon-lock.js';
import { stateDirs, stateRoot } from '../machine/identity.js';
import { type Entry, keyOf, readRegistry, stateDir, unreadableLine } from '../machine/registry.js';
import type { Blocked, Row, Run } from './listing.js';
import { readServed, type Served } from '../machine/served.js';

export type { Run } from './listing.js';

/** A conversation's state in words: its run, and who blocks it (docs/protocol.md §12). */
export const stateWords = (run: string, blocked: Blocked | null | undefined): string =>
  blocked ? `${run}, blocked: ${blocked.agent} (${blocked.kind})` : run;

/** A state's `blocked` as a listing row shows it. */
export const blockedRow = (b: Blocked | null | undefined): Blocked | null =>
  b ? { agent: b.agent, kind: b.kind, since: b.since, question: b.question } : null;

/** One machine name's registry and daemon; `host`: its BATON_HOST, or null: the machine's own name. */
interface MachineListing {
  host: string | null;
  registry: string;
  daemon: MachineHolder | null;
  problem: string | null;
}

/** This shell's machine name's registry, daemon and problem, and every machine name's conversations (`host`). */
export type Listing = Omit<MachineListing, 'host'> & {
  /** Every machine name on this box with a daemon, a problem or a conversation: the machine's own first. */
  machines?: MachineListing[];
  conversations: Row[];
};

type RunInput = { finished?: unknown; paused?: unknown; stalled?: boolean; daemon: { running: boolean } };

/** What a conversation is doing, from its state and whether a daemon serves it. */
export function runOf(s: RunInput): Run {
  if (s.finished) return 'finished';
  if (s.paused) return 'paused';
  if (!s.daemon.running) return 'stopped';
  return s.stalled ? 'stalled' : 'running';
}

async function rowOf(e: Entry, served: Served | null, o: { host: string | null; own: boolean }): Promise<Row> {
  const skipped = o.own ? null : (served?.skipped.find((s) => s.key === keyOf(e))?.problem ?? null);
  const { host } = o;
  const base = { folder: e.home, config: e.config, message_dir: e.message_dir, bus: e.bus, host, skipped };
  const own = o.own ? { own_daemon: true as const } : {};
  try {
    // As its daemon loads it: under the machine name its `up` gave it, whatever this shell's BATON_HOST.
    const as = { host: host ?? hostname() };
    const config = loadConfig({ file: e.config, baseDir: e.home }, { fallback: 'default', ...as });
    const s = await collectStatus(config);
    const run = runOf(s);
    // Its agents here with no pane: it waits for `baton up` (a reboot took them, a pane died).
    const down = Object.keys(s.agents).filter(
      (n) => run !== 'finished' && s.agents[n]!.host === config.host && !s.agents[n]!.alive,
    );
    return {
      ...base,
      ...own,
      ok: true,
      conversation: s.bus.conversation,
      policy: s.policy,
      turn: s.current_turn,
      seconds_in_turn: s.seconds_in_turn,
      messages: s.message_counter,
      run,
      daemon_pid: s.daemon.pid,
      waiting: Object.values(s.waiting).reduce((n, w) => n + w.count, 0),
      cost_usd: s.cost.usd,
      unpriced: s.cost.unpriced,
      agents_down: down,
      blocked: blockedRow(s.blocked),
    };
  } catch (err) {
    return { ...base, ...own, ok: false, problem: err instanceof Error ? err.message.split('\n')[0]! : String(err) };
  }
}

/** One machine name's registry: its daemon, its problem, its rows. */
async function listOne(m: { host: string | null; dir: string }): Promise<{ machine: MachineListing; rows: Row[] }> {
  const read = readRegistry(m.dir);
  const daemon = machineDaemon(m.dir);
  const served = readServed(m.dir);
  const current = daemon && served?.pid === daemon.pid ? served : null;
  // A registry that does not read lists nothing: what the live daemon serves (and skipped) is listed instead.
  const entries = read.ok ? read.registry.conversations : (current?.entries ?? []);
  const rows = await Promise.all([
    ...entries.map((e) => rowOf(e, current, { host: e.host ?? m.host, own: false })),
    ...read.registry.own_daemons.map((e) => rowOf(e, null, { host: e.host ?? m.host, own: true })),
  ]);
  return { machine: { host: m.host, registry: m.dir, daemon, problem: read.ok ? null : read.problem }, rows };
}

/** `dir`: this shell's machine name's state folder; `root`: where every machine name's is (identity.ts). */
export async function listConversations(dir = stateDir(), root = stateRoot()): Promise<Listing> {
  const dirs = stateDirs(root);
  if (!dirs.some((d) => d.dir === dir)) dirs.unshift({ host: null, dir });
  const all = await Promise.all(dirs.map(listOne));
  const own = all.find((a) => a.machine.registry === dir)!.machine;
  const shown = all.filter((a) => a.machine === own || a.machine.daemon || a.machine.problem || a.rows.length);
  return {
    registry: dir,
    daemon: own.daemon,
    problem: own.problem,
    machines: shown.map((a) => a.machine),
    conversations: shown.flatMap((a) => a.rows),
  };
}

export const age = (s: number | null): string =>
  s === null ? '-' : s < 120 ? `${s}s` : s < 7200 ? `${Math.round(s / 60)}m` : `${Math.round(s / 3600)}h`;

/** A machine name's daemon, and its registry's problem, in a line or two. */
function machineLines(m: MachineListing): string[] {
  const who = m.host === null ? "the machine's daemon" : `the daemon of machine name ${m.host} (BATON_HOST)`;
  const head = m.daemon
    ? `${who}: pid ${m.daemon.pid} since ${m.daemon.started_at}${m.daemon.stay ? ' (stays)' : ''}`
    : `${who}: not running`;
  return [head, ...(m.problem ? [`registry: ${unreadableLine(m.problem)}`] : [])];
}

/** What the table's marks mean, when a row has one: agents down after a reboot, a cost that leaves a model out. */
function notes(rows: Row[]): string[] {
  const ok = rows.filter((r): r is Extract<Row, { ok: true }> => r.ok);
  const out: string[] = [];
  if (ok.some((r) => r.agents_down?.length))
    out.push(
      'waits for "baton up": its agents here have no pane (a reboot, a pane that died); "baton up" in its folder ' +
        'starts them again, resuming their sessions ("baton service install --agents" does it at boot)',
    );
  const unpriced = [...new Set(ok.flatMap((r) => r.unpriced ?? []))];
  if (unpriced.length)
    out.push(
      `+: the cost leaves out models with no price (${unpriced.join(', ')}); "pricing" in config.json gives one`,
    );
  return out;
}

export function formatListing(l: Listing): string {
  const lines = (l.machines ?? [{ host: null, registry: l.registry, daemon: l.daemon, problem: l.problem }]).flatMap(
    machineLines,
  );
  if (!l.conversations.length) return `${[...lines, `no conversation registered in ${l.registry}`].join('\n')}\n`;
  // A machine name column only when some conversation runs under a BATON_HOST that is not the machine's own.
  const named = l.conversations.some((r) => r.host);
  const table = [
    ['FOLDER', ...(named ? ['HOST'] : []), 'BUS', 'POLICY', 'TURN', 'FOR', 'MSGS', 'COST', 'STATE', 'WAITING'],
  ];
  for (const r of l.conversations) {
    const lead = [r.folder, ...(named ? [r.host ?? '-'] : [])];
    if (!r.ok) {
      const state = r.skipped ? `skipped: ${r.skipped}` : `unreadable: ${r.problem}`;
      table.push([...lead, r.bus, '-', '-', '-', '-', '-', state, '-']);
    } else {
      const bus = r.conversation ? `${r.bus}:${r.conversation}` : r.bus;
      const down = r.agents_down?.length ? `, waits for "baton up" (no pane: ${r.agents_down.join(', ')})` : '';
      const base = r.own_daemon ? `${r.run} (own daemon)` : r.run;
      const run = r.skipped ? `skipped: ${r.skipped}` : `${stateWords(base, r.blocked)}${down}`;
      const cost = `${dollars(r.cost_usd ?? 0)}${r.unpriced?.length ? '+' : ''}`;
      const row = [...lead, bus, r.policy, r.turn ?? '-', age(r.seconds_in_turn), String(r.messages), cost, run];
      table.push([...row, String(r.waiting)]);
    }
  }
  return `${[...lines, ...columns(table), ...notes(l.conversations)].join('\n')}\n`;
}

/** A table's rows as lines, each column padded to its widest cell (the last one not). */
export function columns(table: string[][]): string[] {
  const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  return table.map((row) => row.map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i]!))).join('  '));
}
