/**
 * `baton ls`: every conversation the machine's daemon serves (its registry, registry.ts), from any folder —
 * each one's `status` (app/status.ts) summed up in a row. A conversation that cannot be read (its config
 * broken, its folder gone or unreadable) is a row with its problem, never the end of the list.
 */
import { loadConfig } from '../../config/load.js';
import { collectStatus } from '../status.js';
import { machineDaemon, type MachineHolder } from './daemon-lock.js';
import { type Entry, keyOf, readRegistry, stateDir, unreadableLine } from './registry.js';
import type { Row, Run } from './listing.js';
import { readServed, type Served } from './served.js';

export type { Row, Run } from './listing.js';

export interface Listing {
  registry: string;
  daemon: MachineHolder | null;
  problem: string | null;
  conversations: Row[];
}

/** What a conversation is doing, from its state and whether a daemon serves it. */
export function runOf(s: {
  finished?: unknown;
  paused?: unknown;
  stalled?: boolean;
  daemon: { running: boolean };
}): Run {
  if (s.finished) return 'finished';
  if (s.paused) return 'paused';
  if (!s.daemon.running) return 'stopped';
  return s.stalled ? 'stalled' : 'running';
}

async function rowOf(e: Entry, served: Served | null): Promise<Row> {
  const skipped = served?.skipped.find((s) => s.key === keyOf(e))?.problem ?? null;
  const base = { folder: e.home, config: e.config, message_dir: e.message_dir, bus: e.bus, skipped };
  try {
    const config = loadConfig({ file: e.config, baseDir: e.home }, { fallback: 'default' });
    const s = await collectStatus(config);
    return {
      ...base,
      ok: true,
      conversation: s.bus.conversation,
      policy: s.policy,
      turn: s.current_turn,
      seconds_in_turn: s.seconds_in_turn,
      messages: s.message_counter,
      run: runOf(s),
      daemon_pid: s.daemon.pid,
      waiting: Object.values(s.waiting).reduce((n, w) => n + w.count, 0),
    };
  } catch (err) {
    return { ...base, ok: false, problem: err instanceof Error ? err.message.split('\n')[0]! : String(err) };
  }
}

export async function listConversations(dir = stateDir()): Promise<Listing> {
  const read = readRegistry(dir);
  const daemon = machineDaemon(dir);
  const served = readServed(dir);
  const current = daemon && served?.pid === daemon.pid ? served : null;
  // A registry that does not read lists nothing: what the live daemon serves (and skipped) is listed instead.
  const entries = read.ok ? read.registry.conversations : (current?.entries ?? []);
  return {
    registry: dir,
    daemon,
    problem: read.ok ? null : read.problem,
    conversations: await Promise.all(entries.map((e) => rowOf(e, current))),
  };
}

const age = (s: number | null): string =>
  s === null ? '-' : s < 120 ? `${s}s` : s < 7200 ? `${Math.round(s / 60)}m` : `${Math.round(s / 3600)}h`;

export function formatListing(l: Listing): string {
  const head = l.daemon
    ? `the machine's daemon: pid ${l.daemon.pid} since ${l.daemon.started_at}${l.daemon.stay ? ' (stays)' : ''}`
    : "the machine's daemon: not running";
  const lines = [head, ...(l.problem ? [`registry: ${unreadableLine(l.problem)}`] : [])];
  if (!l.conversations.length) return `${[...lines, `no conversation registered in ${l.registry}`].join('\n')}\n`;
  const table = [['FOLDER', 'BUS', 'POLICY', 'TURN', 'FOR', 'MSGS', 'STATE', 'WAITING']];
  for (const r of l.conversations) {
    if (!r.ok) {
      const state = r.skipped ? `skipped: ${r.skipped}` : `unreadable: ${r.problem}`;
      table.push([r.folder, r.bus, '-', '-', '-', '-', state, '-']);
    } else {
      const bus = r.conversation ? `${r.bus}:${r.conversation}` : r.bus;
      const run = r.skipped ? `skipped: ${r.skipped}` : r.run;
      const row = [r.folder, bus, r.policy, r.turn ?? '-', age(r.seconds_in_turn), String(r.messages), run];
      table.push([...row, String(r.waiting)]);
    }
  }
  const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  const text = table.map((row) => row.map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i]!))).join('  '));
  return `${[...lines, ...text].join('\n')}\n`;
}
