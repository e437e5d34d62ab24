/**
 * Panes: finding an agent's pane in tmux and what tmux says about it. Targets are exact: the pane `baton
 * up` started the agent in (pinned as @baton_pane, so a pane someone splits off beside it never
 * receives messages), or the configured `target`; a session is always matched exactly (`=name:`).
 */
import type { Agent } from '../config/config.js';
import type { PaneRef } from '../core/delivery.js';
import type { Tmux } from './tmux.js';

export interface PaneInfo {
  id: string;
  session: string;
  dead: boolean;
  inMode: boolean;
  command: string;
  /** The pane `baton up` started the agent in (session option @baton_pane), if any. */
  agentPane: string;
  /** Runs the bundled demo agent (`baton up --demo`), whatever kind the config names. */
  demo: boolean;
  /** Last output in the pane's window (epoch seconds; tmux keeps activity per window). */
  activity: number;
  /** What the pane was started with; empty for a plain interactive shell pane. */
  startCommand: string;
  /** The pane's first process. A pane id is reused by the next tmux server; its process is not. */
  pid: number;
  /** Which tmux server: its pid and start time. */
  server: string;
  /** The pane's terminal (/dev/pts/N). */
  tty: string;
  /**
   * Did the pane's program ask for bracketed paste? From tmux itself where it says (`bracket_paste_flag`,
   * tmux ≥ 3.7), else from the tracker `baton up` gives the panes it starts (@baton_paste); null: unknown.
   */
  bracketed: boolean | null;
  /**
   * How `baton up` started the agent's client in it (session option @baton_start): `resumed` its session,
   * `fresh`, or '' (a pane baton did not start, or an older baton's): who was started again is told what
   * it owes accordingly (core/restart.ts).
   */
  start: string;
}

export type { PaneRef };

export const paneRef = (p: PaneInfo): PaneRef => ({ id: p.id, pid: p.pid, server: p.server });
export const samePane = (a: PaneRef, b: PaneRef): boolean => a.id === b.id && a.pid === b.pid && a.server === b.server;

/** The tmux target of an agent: its configured pane, or its session matched exactly. */
export const targetOf = (agent: Pick<Agent, 'target' | 'session'>): string => agent.target ?? `=${agent.session}:`;

// Tab-separated (spaces here become tabs); the start command (which may contain anything) comes last.
const FORMAT = (
  'P #{pane_id} #{pane_dead} #{pane_in_mode} #{@baton_pane} #{session_name} #{pane_current_command} ' +
  '#{window_activity} #{@baton_demo} #{pane_pid} #{pid}:#{start_time} #{pane_tty} #{bracket_paste_flag} ' +
  '#{@baton_paste} #{@baton_start} #{pane_start_command}'
).replaceAll(' ', '\t');
const PROBE =
  /^P\t(%\d+)\t(\d*)\t(\d*)\t(%\d+|)\t([^\t]*)\t([^\t]*)\t(\d*)\t(1?)\t(\d*)\t(\d+:\d+)\t([^\t]*)\t([01]?)\t(on|off|)\t([^\t]*)\t(.*)$/;

/**
 * The pane behind a target, or null when it does not exist (display-message prints an empty line and
 * exits 0 for a missing target, so the format carries a marker to tell the two apart).
 */
export async function probe(tmux: Tmux, target: string): Promise<PaneInfo | null> {
  const r = await tmux.run(['display-message', '-p', '-t', target, FORMAT]);
  const m = PROBE.exec(r.stdout.split('\n')[0] ?? '');
  if (!r.ok || !m) return null;
  const flag = m[12] ? m[12] === '1' : m[13] ? m[13] === 'on' : null;
  return {
    id: m[1]!,
    dead: m[2] === '1',
    inMode: m[3] === '1',
    agentPane: m[4]!,
    session: m[5]!,
    command: m[6]!,
    activity: Number(m[7]),
    demo: m[8] === '1',
    pid: Number(m[9]),
    server: m[10]!,
    tty: m[11]!,
    bracketed: flag,
    start: m[14] === 'resumed' || m[14] === 'fresh' ? m[14] : '',
    startCommand: m[15]!,
  };
}

/**
 * The agent's pane. A session target means the pane `baton up` started the agent in (so a pane a
 * person split off beside it never receives messages), else the session's active pane.
 */
export async function findPane(tmux: Tmux, agent: Pick<Agent, 'target' | 'session'>): Promise<PaneInfo | null> {
  const found = await probe(tmux, targetOf(agent));
  if (!found || agent.target || !found.agentPane || found.agentPane === found.id) return found;
  const pinned = await probe(tmux, found.agentPane);
  return pinned && pinned.session === agent.session ? pinned : null;
}

/** The pane's visible screen, one string per line (with its SGR colour codes: `colours`); null when it cannot be read. */
export async function capture(tmux: Tmux, pane: PaneInfo, colours = false): Promise<string[] | null> {
  const r = await tmux.run(['capture-pane', '-p', ...(colours ? ['-e'] : []), '-t', pane.id]);
  return r.ok ? r.stdout.split('\n') : null;
}
