/**
 * Each agent's client session, kept in the state (`sessions`, core/sessions.ts) from its hooks, so `baton up` after a
 * reboot, a crash or `down` resumes it (app/up/agent-start.ts). One state write only when a session is new or another
 * (a new client, Claude Code's `/clear`), none per prompt: on PostgreSQL a state write is a row every machine hears of.
 */
import type { TurnState } from '../bus/bus.js';
import type { HookNote } from '../core/hook-note.js';
import { changed, sessionOf } from '../core/sessions.js';
import type { Uses } from './context.js';

export interface SessionKeeperParts extends Uses<'config' | 'log'> {
  bus: TurnState;
}

export class SessionKeeper {
  constructor(private readonly p: SessionKeeperParts) {}

  /** A hook note came from `agent`: its session recorded when it is not yet. */
  async saw(agent: string, note: HookNote): Promise<void> {
    const a = this.p.config.agents[agent];
    if (!a) return;
    const now = sessionOf(note.payload, { kind: a.kind, cwd: a.cwd, at: note.at });
    if (!now || !changed(this.p.bus.state().sessions?.[agent], now)) return;
    const was = this.p.bus.state().sessions?.[agent];
    await this.p.bus.update((s) => {
      const kept = s.sessions?.[agent];
      // The first time a session is seen is when it began for baton: kept while it is the same one.
      const at = kept && kept.id === now.id ? kept.at : now.at;
      return { ...s, sessions: { ...s.sessions, [agent]: { ...now, at } } };
    });
    if (!was || was.id !== now.id)
      this.p.log.info(`${agent}'s client session is ${now.id}${was ? ` (was ${was.id})` : ''}: "baton up" resumes it`);
  }
}
