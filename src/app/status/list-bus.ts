/**
 * `baton ls --bus URL`: every conversation in that database (its schema), from any folder: who holds the turn
 * where and how long, its run state, what waits, each machine's daemon. Only what the database knows, nothing
 * taken or written: files not relayed yet are their machine's to count (its own `baton ls`/`status`).
 */
import { openDirectory } from '../../bus/open.js';
import type { ListedConversation, ListedMachine, StoreListing } from '../../bus/bus.js';
import { age, blockedRow, columns, runOf, stateWords } from './list.js';
import type { Blocked, Run } from './listing.js';
import type { HostStatus } from './report.js';
import { turnSeconds } from './status.js';

/** `pid`: its daemon's (alive, or the last one that held its lease); null: none known. */
type BusMachine = { host: string } & HostStatus;

type BusRow = {
  conversation: string;
  set_aside: boolean;
  created_at: string;
  /** Which machine's daemon first recorded the config all its machines share, and when (null: none yet). */
  config_recorded: { host: string | null; at: string | null } | null;
  machines: BusMachine[];
} & (
  | {
      ok: true;
      policy: string | null;
      turn: string | null;
      /** The machine of the agent holding the turn (from the recorded config; null: not known). */
      turn_host: string | null;
      turn_started_at: string | null;
      seconds_in_turn: number | null;
      messages: number;
      run: Run;
      /** Stored and not delivered yet, in all and by direction; and awaiting a person's approval. */
      waiting: number;
      held: Record<string, number>;
      approvals: number;
      rejected: number;
      /** The turn holder waits at a dialog for a person (docs/protocol.md §12), or null. */
      blocked: Blocked | null;
    }
  | { ok: false; problem: string }
);

export interface BusListing {
  bus: string;
  schema_version: number | null;
  conversations: BusRow[];
}

function machineOf({ host, alive, holder, last_heartbeat, agents }: ListedMachine): BusMachine {
  const since = alive ? (holder?.started_at ?? null) : last_heartbeat;
  return { host, alive, pid: holder?.pid ?? null, since, last_heartbeat, agents };
}

function rowOf(c: ListedConversation, now: number): BusRow {
  const { set_aside, created_at } = c;
  const config_recorded = c.config ? { host: c.config.host, at: c.config.at } : null;
  const base = { conversation: c.name, set_aside, created_at, config_recorded, machines: c.machines.map(machineOf) };
  const s = c.state;
  if (!s) return { ...base, ok: false, problem: c.problem ?? 'no state' };
  const fp = c.config?.fingerprint as { turns?: { policy?: string }; agents?: Record<string, { host?: string }> };
  const started = s.turn_started_at ?? null;
  // As `ls` and `status` say it (list.ts runOf), with "a daemon" meaning any machine's.
  const run = runOf({ ...s, daemon: { running: c.machines.some((m) => m.alive) } });
  return {
    ...base,
    ok: true,
    policy: fp?.turns?.policy ?? null,
    turn: s.current_turn,
    turn_host: fp?.agents?.[s.current_turn]?.host ?? null,
    turn_started_at: started,
    seconds_in_turn: turnSeconds(s, now), // none for a finished or paused conversation
    messages: s.message_counter,
    run,
    waiting: Object.values(c.waiting).reduce((n, k) => n + k, 0),
    held: c.waiting,
    approvals: c.approvals,
    rejected: c.rejected,
    blocked: blockedRow(s.blocked),
  };
}

/** The listing of the database at `url` (schema `schema`); throws the database's error (cli/main.ts explains it). */
export async function listBus(url: string, schema?: string): Promise<BusListing> {
  const l: StoreListing = await openDirectory(url, schema).list();
  const now = Date.parse(l.now);
  return { bus: l.where, schema_version: l.schema_version, conversations: l.conversations.map((c) => rowOf(c, now)) };
}

function machineLine(m: BusMachine): string {
  const agents = `agents: ${m.agents.join(', ') || '-'}`;
  const daemon = m.alive
    ? `alive, pid ${m.pid ?? '?'} since ${m.since ?? '?'}`
    : `no daemon${m.since ? ` (last heartbeat ${m.since}${m.pid ? `, pid ${m.pid}` : ''})` : ''}`;
  return `    ${m.host}: ${daemon}; ${agents}`;
}

export function formatBusListing(l: BusListing): string {
  const head = `${l.bus}: ${l.schema_version === null ? 'no baton schema here' : `schema version ${l.schema_version}`}`;
  if (!l.conversations.length) return `${head}\nno conversation\n`;
  const table = [['CONVERSATION', 'POLICY', 'TURN', 'FOR', 'MSGS', 'STATE', 'WAITING']];
  const machines: string[][] = [];
  for (const r of l.conversations) {
    const state = (run: string) => (r.set_aside ? `${run} (set aside)` : run);
    if (!r.ok) table.push([r.conversation, '-', '-', '-', '-', state(`unreadable: ${r.problem}`), '-']);
    else {
      const turn = r.turn ? `${r.turn}${r.turn_host ? `@${r.turn_host}` : ''}` : '-';
      const waiting = `${r.waiting}${r.approvals ? ` (+${r.approvals} to approve)` : ''}`;
      const run = state(stateWords(r.run, r.blocked));
      const row = [r.conversation, r.policy ?? '-', turn, age(r.seconds_in_turn), String(r.messages), run];
      table.push([...row, waiting]);
    }
    machines.push(r.machines.map(machineLine));
  }
  const [header, ...rows] = columns(table);
  const lines = [head, header!];
  for (const [i, row] of rows.entries()) lines.push(row, ...machines[i]!);
  return `${lines.join('\n')}\n`;
}
