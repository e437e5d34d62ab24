/**
 * Typing a message into an agent's pane through tmux (SPEC §5): the whole text as one bracketed paste
 * through a named buffer, then Enter on its own after `enter_delay_ms`. Content never goes through
 * `send-keys` without `-l`, so no word in it can become a key. For kinds whose screen is read (claude),
 * Enter waits until the box shows the paste — read too early, the box still looks empty because the
 * paste is not drawn yet (seen with the real Claude Code at enter_delay_ms 0) — and "submitted" means
 * the box is empty again; still holding the text after 1.5 s, it gets one more Enter (never caused a
 * double submit in measurements), and only on baton's own text: a person's typing is never submitted.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Agent } from '../config/config.js';
import type { Confirmation } from '../core/record.js';
import { KINDS } from './kinds.js';
import { findPane, type PaneInfo } from './pane.js';
import { readScreen, screenRead, whyNotReady } from './readiness.js';
import { isOurPaste, screenProblem, type Screen } from './screen.js';
import type { Tmux } from './tmux.js';
import type { Ready, Typed, Typist } from './typist.js';

const fail = (error: string, maybeTyped: boolean): { ok: false; error: string; maybeTyped: boolean } => ({ ok: false, error, maybeTyped });

let bufferSeq = 0;

export class TmuxTypist implements Typist {
  constructor(
    readonly tmux: Tmux,
    private readonly configuredDelay: number | undefined,
  ) {}

  async ready(agent: Agent, ours?: string): Promise<Ready> {
    const pane = await findPane(this.tmux, agent);
    const notReady = await whyNotReady(this.tmux, agent, pane);
    // Text in the box may be our own delivery (pasted, not yet submitted), but never a person's.
    const screen = notReady?.screen;
    const oursInBox = screen?.state === 'holding' && ours !== undefined && isOurPaste(screen.input, ours);
    if (pane && (!notReady || oursInBox)) return { ok: true, pane };
    return { ok: false, reason: notReady?.reason ?? 'no pane', ...(screen ? { screen } : {}) };
  }

  async paste(pane: PaneInfo, text: string): Promise<Typed<number>> {
    const buffer = `baton-${process.pid}-${++bufferSeq}`;
    // -p: bracketed, when the program asked for it; -r: newlines stay LF, so the text arrives byte for
    // byte and a program without bracketed paste does not take each line break as Enter.
    const r = await this.tmux.pasteText(buffer, text, pane.id, ['-p', '-r']);
    const at = performance.now();
    if (!r.ok) {
      await this.tmux.run(['delete-buffer', '-b', buffer]);
      return fail(`paste into ${pane.id} failed: ${r.timedOut ? 'tmux timed out' : r.stderr || `exit ${r.exitCode}`}`, r.timedOut);
    }
    return { ok: true, value: at };
  }

  async shown(agent: Agent, pane: PaneInfo, boundMs = 1500): Promise<boolean> {
    if (!screenRead(agent, pane)) return true;
    for (const until = performance.now() + boundMs; performance.now() < until; await sleep(25)) {
      if ((await readScreen(this.tmux, agent, pane))?.state === 'holding') return true;
    }
    return false;
  }

  async enter(pane: PaneInfo, delayMs: number): Promise<Typed<void>> {
    if (delayMs > 0) await sleep(delayMs);
    return this.pressEnter(pane);
  }

  private async pressEnter(pane: PaneInfo): Promise<Typed<void>> {
    const r = await this.tmux.run(['send-keys', '-t', pane.id, 'Enter']);
    if (!r.ok) return fail(`Enter into ${pane.id} failed: ${r.timedOut ? 'tmux timed out' : r.stderr || `exit ${r.exitCode}`}`, true);
    return { ok: true, value: undefined };
  }

  async confirm(agent: Agent, pane: PaneInfo, ours: string, boundMs = 1500): Promise<Typed<Confirmation>> {
    if (!screenRead(agent, pane)) return { ok: true, value: 'not_checked' };
    for (const attempt of [1, 2]) {
      let last: Screen | null = null;
      for (const until = performance.now() + boundMs; performance.now() < until; await sleep(100)) {
        last = await readScreen(this.tmux, agent, pane);
        if (last?.state === 'ready') return { ok: true, value: attempt === 1 ? 'screen' : 'screen_after_second_enter' };
      }
      if (last?.state !== 'holding') return fail(`not confirmed: ${last ? screenProblem(last) : 'screen unreadable'}`, true);
      // Enter again only on our own text: what a person typed meanwhile is never submitted by baton.
      if (!isOurPaste(last.input, ours)) return fail(`not confirmed: ${screenProblem(last)}`, true);
      if (attempt === 1) {
        const again = await this.pressEnter(pane);
        if (!again.ok) return again;
      }
    }
    return fail(`not submitted: the text is still in ${pane.id}'s input box after a second Enter`, true);
  }

  async type(agent: Agent, pane: PaneInfo, text: string, delayMs: number): Promise<Typed<Confirmation>> {
    const pasted = await this.paste(pane, text);
    if (!pasted.ok) return pasted;
    if (!(await this.shown(agent, pane))) return fail(`the paste never showed in ${pane.id}'s input box`, true);
    const entered = await this.enter(pane, Math.max(0, delayMs - (performance.now() - pasted.value)));
    if (!entered.ok) return entered;
    return this.confirm(agent, pane, text.slice(0, 40));
  }

  enterDelay(agent: Agent): number {
    return this.configuredDelay ?? KINDS[agent.kind].enterDelayMs;
  }

  close(): void {
    this.tmux.close();
  }
}
