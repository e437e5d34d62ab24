import { readdir } from 'node:fs/promises';
import type { Config } from '../config.js';
import { isErrno } from '../fsx.js';
import { listInbox } from '../inbox.js';
import { layout } from '../layout.js';
import { daemonStatus } from '../lock.js';
import { findPane, targetOf } from '../pane.js';
import { readState } from '../state.js';
import { configFrom, noPositionals, tmux, type CommandSpec } from './common.js';

export interface StatusReport {
  message_dir: string;
  policy: string;
  current_turn: string | null;
  message_counter: number;
  last_message_id: string | null;
  pending_reply_to: string | null;
  /** Files waiting in each direction folder (out-of-turn files, or ones not taken yet). */
  held: Record<string, number>;
  rejected: number;
  daemon: { running: boolean; pid: number | null };
  agents: Record<string, { alive: boolean; target: string; pane: string | null; dead: boolean; command: string | null }>;
}

export async function collectStatus(config: Config): Promise<StatusReport> {
  const l = layout(config);
  const t = tmux();
  const state = await readState(l.state);
  const held: Record<string, number> = {};
  for (const d of config.directions) held[d.name] = (await listInbox(d.dir)).names.length;
  let rejected = 0;
  try {
    // Rejected files are those with a note beside them (a rejected file may itself be named *.error.json).
    const names = new Set(await readdir(l.rejected));
    rejected = [...names].filter((n) => names.has(`${n}.error.json`)).length;
  } catch (err) {
    if (!isErrno(err, 'ENOENT')) throw err;
  }
  const agents: StatusReport['agents'] = {};
  await Promise.all(
    config.order.map(async (name) => {
      const target = targetOf(config.agents[name]!);
      const pane = await findPane(t, config.agents[name]!);
      agents[name] = { alive: !!pane && !pane.dead, target, pane: pane?.id ?? null, dead: !!pane?.dead, command: pane?.command ?? null };
    }),
  );
  return {
    message_dir: l.root,
    policy: config.turns.policy,
    current_turn: state?.current_turn ?? null,
    message_counter: state?.message_counter ?? 0,
    last_message_id: state?.last_message_id ?? null,
    pending_reply_to: state?.pending_reply_to ?? null,
    held,
    rejected,
    daemon: await daemonStatus(l),
    agents: Object.fromEntries(config.order.map((n) => [n, agents[n]!])),
  };
}

export function formatStatus(s: StatusReport): string {
  const lines = [
    `message_dir   ${s.message_dir}`,
    `daemon        ${s.daemon.running ? `running (pid ${s.daemon.pid})` : 'not running'}`,
    `policy        ${s.policy}`,
    `turn          ${s.current_turn ?? '(no state yet)'}`,
    `messages      ${s.message_counter} (last ${s.last_message_id ?? '-'}, awaiting a reply to ${s.pending_reply_to ?? '-'})`,
    `waiting       ${Object.entries(s.held).map(([d, n]) => `${d}: ${n}`).join(', ') || '-'}`,
    `rejected      ${s.rejected}`,
    'agents',
    ...Object.entries(s.agents).map(
      ([n, a]) => `  ${n.padEnd(12)} ${a.alive ? 'alive' : a.dead ? 'dead ' : 'missing'}  ${a.target}${a.pane ? ` (${a.pane}, ${a.command})` : ''}`,
    ),
  ];
  return `${lines.join('\n')}\n`;
}

export const status: CommandSpec = {
  usage: 'status [--json]',
  summary: "whose turn it is, what is waiting, whether the daemon and panes are alive",
  options: { json: { type: 'boolean' } },
  help: `
Reads state.json, the direction folders, rejected/ and the daemon's lock, and asks tmux about each
agent's pane. Changes nothing.

  --json   print one JSON object: current_turn, message_counter, last_message_id, pending_reply_to,
           held (folder → files waiting), rejected (count), daemon {running, pid},
           agents (name → {alive, target, pane, dead, command}), message_dir, policy`,
  async run(inv) {
    noPositionals(inv);
    const report = await collectStatus(configFrom(inv));
    process.stdout.write(inv.values.json ? `${JSON.stringify(report, null, 2)}\n` : formatStatus(report));
    return 0;
  },
};
