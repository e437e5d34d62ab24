/**
 * Blocked on a person (docs/protocol.md §12): which agents of this machine wait at a dialog, from their hooks
 * (via receipts.ts) and screens, and the conversation's `blocked` while the turn holder does (core/blocked.ts
 * decides; this is its clock, screen looks and writes).
 * - While a dialog is open nothing is typed into its pane (`hold`): a reminder, note or catch-up typed into it
 *   answers it (Gemini CLI's `j`/`k` move its cursor, an Enter then picks).
 * - An open dialog's screen is looked at every OPEN_LOOK_MS (No and Esc close it with no hook in any client), and
 *   at once when a hook says its tool ran or its turn went on; otherwise the holder's every IDLE_LOOK_MS: start-up
 *   dialogs and questions with no hook (Codex's request_user_input) show only there. A look is one capture-pane.
 * - The turn clock stands still while the holder is blocked (core/conversation.ts); each change is an event:
 *   `blocked` (agent, since, kind, question), `unblocked` (agent, after_ms, by).
 */
import { isLocal } from '../config/config.js';
import { blockedOf, hookOpened, type OpenDialog, screenSaw, type ScreenLook, withBlocked } from '../core/blocked.js';
import { closesDialog, dialogFromHook } from '../core/dialog-hooks.js';
import type { HookNote } from '../core/hook-note.js';
import { isoAt, type Clock, type Events, type TurnState } from '../bus/bus.js';
import { readDialog, readsDialogs } from '../terminal/dialogs/index.js';
import type { AgentDialog, DialogStore } from '../terminal/hooks/dialog-files.js';
import type { HookIntake } from '../terminal/hooks/intake.js';
import type { Typist } from '../terminal/typist.js';
import type { Uses } from './context.js';

/** How often an open dialog's screen is looked at (a dialog answered with No/Esc shows nowhere else). */
export const OPEN_LOOK_MS = 400;
/** How often the turn holder's screen is looked at for a dialog no hook reports. */
const IDLE_LOOK_MS = 4000;

export interface DialogsParts extends Uses<'config' | 'log' | 'wakeIn'> {
  bus: TurnState & Events & Clock;
  typist: Pick<Typist, 'look'>;
  store: DialogStore;
  /** The agents' hook spools, peeked at right before a keystroke (holdNow). */
  spool?: Pick<HookIntake, 'notes'>;
  /** The conversation's `blocked` changed: the turn clock stood still or goes on (the conductor plans again). */
  changed(): void;
}

export class Dialogs {
  private readonly open = new Map<string, OpenDialog>();
  /** When each agent's screen was last looked at (performance.now()). */
  private readonly looked = new Map<string, number>();
  /** Agents whose hook said the dialog closed: their screen is looked at now, and says whether it did. */
  private readonly closing = new Set<string>();
  /** How each agent's last dialog closed, for the `unblocked` event. */
  private readonly closedBy = new Map<string, 'hook' | 'screen'>();
  /**
   * Agents whose hook said the dialog closed while their screen still showed it: the client draws after its hooks
   * ran and the turn may pass on meanwhile (Stop came with PostToolUse), so that hook ended the block, not the turn.
   */
  private readonly hookSaidClosed = new Set<string>();
  private readonly agents: string[];
  private saved = '{}';
  private seeded = false;

  constructor(private readonly p: DialogsParts) {
    this.agents = p.config.order.filter((a) => isLocal(p.config, a) && readsDialogs(p.config.agents[a]!.kind));
  }

  /** Why nothing may be typed into this agent's pane now (its dialog is open), or null. */
  hold(agent: string): string | null {
    const d = this.open.get(agent);
    if (!d) return null;
    const answer = d.choices?.length ? `; baton answer ${agent} --list shows its choices` : '';
    return `${agent} waits at a dialog for a person (${d.kind}: ${d.question}): nothing is typed into its pane until it closes${answer}`;
  }

  /**
   * `hold`, or a dialog whose hook note is unread: notes are handled between passes, a paste and its Enter inside
   * one, so a dialog opened since the gate would get them (an Enter picks its choice). Only looks; a pass handles it.
   */
  async holdNow(agent: string): Promise<string | null> {
    const held = this.hold(agent);
    if (held || !this.agents.includes(agent) || !this.p.spool) return held;
    const kind = this.p.config.agents[agent]!.kind;
    let open = false;
    for (const s of await this.p.spool.notes(agent).catch(() => []))
      if ('note' in s) open = dialogFromHook(kind, s.note) ? true : closesDialog(s.note) ? false : open;
    return open ? `${agent}'s hook says a dialog opened: nothing is typed into its pane until it is read` : null;
  }

  /** The agent's open dialog, or null. */
  current(agent: string): OpenDialog | null {
    return this.open.get(agent) ?? null;
  }

  /** A hook note of this agent's (every one: a dialog opens, its tool ran, the turn went on). */
  note(agent: string, note: HookNote): void {
    if (!this.agents.includes(agent)) return;
    const what = dialogFromHook(this.p.config.agents[agent]!.kind, note);
    const prev = this.open.get(agent) ?? null;
    if (what && !(what.vague && prev)) {
      const now = this.p.bus.now();
      this.set(agent, hookOpened(prev, { iso: isoAt(now), ms: now }, what));
      this.closing.delete(agent);
      this.hookSaidClosed.delete(agent);
    } else if (prev && closesDialog(note)) {
      this.closing.add(agent);
      this.hookSaidClosed.add(agent);
    }
    this.p.wakeIn(0);
  }

  /** Look at the agent's screen at the next pass (an answer was typed into it). */
  soon(agent: string): void {
    this.looked.delete(agent);
    this.p.wakeIn(150);
  }

  /** Look at the screens that are due, keep `blocked` as the holder's dialog says, save what changed. */
  async run(): Promise<void> {
    const st = this.p.bus.state();
    if (!this.seeded) this.seed(st.blocked ?? null);
    const holder = st.current_turn;
    const t = performance.now();
    for (const agent of this.agents) {
      const every = this.open.has(agent) ? OPEN_LOOK_MS : agent === holder && !st.finished ? IDLE_LOOK_MS : null;
      const due = this.closing.has(agent) || (every !== null && t - (this.looked.get(agent) ?? -Infinity) >= every);
      if (due) await this.look(agent);
    }
    if (isLocal(this.p.config, holder)) await this.sync(holder);
    await this.save();
    if (this.open.size) this.p.wakeIn(OPEN_LOOK_MS);
  }

  /** A daemon started while the holder was blocked: that dialog is taken as seen, and its screen says if it still is. */
  private seed(blocked: { agent: string; since: string; kind: OpenDialog['kind']; question: string } | null): void {
    this.seeded = true;
    if (!blocked || !this.agents.includes(blocked.agent)) return;
    const { since, kind, question } = blocked;
    this.set(blocked.agent, { since, sinceMs: Date.parse(since), kind, question, source: 'screen', seen: true });
  }

  private async look(agent: string): Promise<void> {
    this.looked.set(agent, performance.now());
    const closing = this.closing.delete(agent);
    const seen = await this.p.typist.look(this.p.config.agents[agent]!);
    const look: ScreenLook = seen.ok
      ? readDialog(this.p.config.agents[agent]!.kind, seen.lines)
      : { state: seen.gone ? 'none' : 'unknown' };
    const prev = this.open.get(agent) ?? null;
    const now = this.p.bus.now();
    // A hook said it closed: the screen confirms unless it still shows a dialog (another tool's hook, a next step).
    const next = closing && look.state !== 'dialog' ? null : screenSaw(prev, look, { iso: isoAt(now), ms: now });
    if (prev && !next) this.closedBy.set(agent, closing || this.hookSaidClosed.has(agent) ? 'hook' : 'screen');
    if (!next || next.id !== prev?.id) this.hookSaidClosed.delete(agent);
    this.set(agent, next);
  }

  private set(agent: string, d: OpenDialog | null): void {
    const had = this.open.has(agent);
    if (d) this.open.set(agent, d);
    else this.open.delete(agent);
    if (had !== Boolean(d)) {
      if (d) this.closedBy.delete(agent);
      if (d) this.p.log.info(`${agent} waits at a dialog (${d.kind}: ${d.question})`);
      else this.p.log.info(`${agent}'s dialog has closed`);
      // Its tool-ran hook runs only while the dialog is open.
      void this.p.store
        .flag(agent, Boolean(d))
        .catch((err: unknown) => this.p.log.warn(`${agent}'s dialog flag: ${String(err)}`));
    }
  }

  /** The conversation's `blocked` as the holder's dialog says, its clock accounted for; each change an event. */
  private async sync(holder: string): Promise<void> {
    const next = blockedOf(holder, this.open.get(holder));
    const bus = this.p.bus;
    if (JSON.stringify(bus.state().blocked ?? null) === JSON.stringify(next)) return;
    const was = bus.state().blocked ?? null;
    let changes: ReturnType<typeof withBlocked>['changes'] = [];
    await bus.update((s) => {
      const r = withBlocked(s, next, bus.now());
      changes = r.changes;
      return r.state;
    });
    this.p.changed();
    for (const c of changes) {
      if (c.kind === 'unblocked') {
        const by = this.closedBy.get(c.was.agent) ?? (this.hookSaidClosed.has(c.was.agent) ? 'hook' : 'turn');
        this.p.log.info(
          `the conversation is no longer blocked (${c.was.agent}, after ${Math.round(c.after_ms / 1000)} s)`,
        );
        await bus.events.emit('unblocked', { agent: c.was.agent, after_ms: c.after_ms, by });
      } else if (c.kind === 'blocked') {
        this.p.log.warn(
          `the conversation is blocked: ${holder} waits for a person (${c.blocked.kind}: ${c.blocked.question})`,
        );
        await bus.events.emit('blocked', { ...c.blocked });
      } else if (c.blocked.question !== was?.question) {
        // The holder's next dialog (the next question, the next tool) with no close seen between: a new happening.
        await bus.events.emit('blocked', { ...c.blocked });
      }
      // Else the same dialog, its choices now read off its screen: no new happening.
    }
  }

  private async save(): Promise<void> {
    const all: Record<string, AgentDialog> = {};
    for (const [agent, { since, kind, question, source, choices, id }] of this.open)
      all[agent] = { since, kind, question, source, ...(choices && id ? { choices, dialog: id } : {}) };
    const text = JSON.stringify(all);
    if (text === this.saved) return;
    this.saved = text;
    await this.p.store
      .save(all)
      .catch((err: unknown) => this.p.log.warn(`cannot write the open dialogs: ${String(err)}`));
  }
}
