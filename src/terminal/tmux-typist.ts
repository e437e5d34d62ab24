/**
 * Typing into an agent's pane through tmux (docs/protocol.md §5): the whole text as one bracketed paste through
 * a named buffer, then Enter when the kind says (kinds.ts). Content never goes through `send-keys` without `-l`,
 * and every keystroke is fenced inside tmux (fence.ts). The daemon decides what and whether (daemon/pipeline.ts);
 * this is how, and when the Enter goes.
 *
 * A read kind's Enter waits for the box to show the paste (an Enter before Claude Code drew it stayed in the
 * box); text still there after 1.5 s gets one more Enter. Codex takes an Enter while busy as a steer that
 * discards its reply, so a busy Codex gets Tab (a queued turn). docs/decisions/0001-enter-after-the-paste-shows.md.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Agent } from '../config/config.js';
import type { Confirmation } from '../core/record.js';
import { guard, raiseFence, refusal, skipReport, type Refusal, type TmuxFence } from './fence.js';
import { echoed, tailOf } from './echo.js';
import { KINDS, type KindSpec } from './kinds.js';
import { capture, findPane, paneRef, probe, samePane, type PaneInfo, type PaneRef } from './pane.js';
import { DIALOG_KEYS, type DialogKey } from './dialogs/index.js';
import { intakeOf, readScreen, screenRead, whyNotReady } from './readiness.js';
import { copyInBox, isOurPaste, screenProblem, type Screen } from './screen.js';
import { SKIPPED, type IfOutcome, type Tmux } from './tmux.js';
import type { Box, Intake, Look, Ready, Typed, Typist } from './typist.js';

type Failure = { ok: false; error: string; maybeTyped: boolean; refused?: Refusal };
const fail = (error: string, maybeTyped: boolean, refused?: Refusal): Failure =>
  refused ? { ok: false, error, maybeTyped, refused } : { ok: false, error, maybeTyped };
const REFUSED: Record<Refusal, string> = {
  fenced: 'another daemon holds this conversation now',
  unfenced: 'the tmux server does not know this daemon',
  moved: 'the pane is not the one it was (another session, or another tmux server)',
  dead: 'the pane is dead',
  copy_mode: 'the pane is in copy mode (someone is scrolling it)',
};

let bufferSeq = 0;
/** How often a generic program's screen is looked at for the paste's end (kinds.ts: between 50 and 150 ms). */
const ECHO_STEP_MS = 10;

/** Sleep until performance.now() reaches `t`. */
const until = async (t: number): Promise<void> => {
  const left = t - performance.now();
  if (left > 0) await sleep(left); // a timer even at 0 costs each paste a turn of the event loop
};

export class TmuxTypist implements Typist {
  private fenceNow: TmuxFence | null = null;

  constructor(
    readonly tmux: Tmux,
    /** `delivery.enter_delay_ms` as it is now (a config reloaded while the daemon runs changes it). */
    private readonly configuredDelay: () => number | undefined,
    /** False when the tmux client is shared (one daemon process serving many conversations): close() leaves it open. */
    private readonly ownsTmux = true,
  ) {}

  async fence(f: TmuxFence | null): Promise<void> {
    this.fenceNow = f;
    if (f) await this.raise();
  }

  /** Set this daemon's token on the server unless a newer one is there. True when it holds now. */
  private async raise(): Promise<boolean> {
    const f = this.fenceNow!;
    const { condition, command } = raiseFence(f);
    const r = await this.tmux.runIf(null, condition, command, `display-message -p '${SKIPPED}'`);
    return r.ran === 'then';
  }

  /**
   * Run `command` only if the pane instance is the one meant and the fence holds; else say why not.
   * `first`: tmux's answer to that very line, already sent (a paste goes with its set-buffer).
   */
  private async guarded(
    pane: PaneRef,
    command: string,
    opts: { retried?: boolean; first?: IfOutcome } = {},
  ): Promise<{ ok: true } | Failure> {
    const r =
      opts.first ?? (await this.tmux.runIf(pane.id, guard(this.fenceNow, pane), command, skipReport(this.fenceNow)));
    if (r.ran === 'then') return { ok: true };
    if (r.ran === 'error') {
      if (r.timedOut) return fail(`tmux timed out on ${pane.id}`, true);
      return fail(`${pane.id}: ${REFUSED.moved}`, false, 'moved'); // no such pane any more
    }
    const why = refusal(r.output, this.fenceNow, pane);
    // A new tmux server has no token yet: give it ours (unless it has a newer one), then try once more.
    if (why === 'unfenced' && !opts.retried && (await this.raise()))
      return this.guarded(pane, command, { retried: true });
    const refused = why === 'unfenced' ? 'fenced' : why;
    return fail(`${pane.id}: ${REFUSED[refused]}`, false, refused);
  }

  locate(agent: Agent): Promise<PaneInfo | null> {
    return findPane(this.tmux, agent);
  }

  async ready(agent: Agent, ours?: string): Promise<Ready> {
    const pane = await findPane(this.tmux, agent);
    const notReady = await whyNotReady(this.tmux, agent, pane);
    // Text in the box may be our own delivery (pasted, not yet submitted), but never a person's.
    const screen = notReady?.screen;
    const oursInBox = screen?.state === 'holding' && ours !== undefined && isOurPaste(screen.input, ours);
    if (pane && (!notReady || oursInBox)) return { ok: true, pane };
    return { ok: false, reason: notReady?.reason ?? 'no pane', ...(screen ? { screen } : {}) };
  }

  async box(agent: Agent, pane: PaneInfo, copies: readonly string[]): Promise<Box> {
    if (!screenRead(agent, pane)) return { kind: 'unread' };
    const screen = await readScreen(this.tmux, agent, pane);
    if (screen?.state === 'ready') return { kind: 'empty' };
    const copy = screen?.state === 'holding' ? copyInBox(screen.input, copies) : undefined;
    if (copy) return { kind: 'copy', which: copy.which };
    return { kind: 'other', detail: screen ? (screenProblem(screen) ?? '') : 'screen unreadable' };
  }

  async look(agent: Agent): Promise<Look> {
    const pane = await findPane(this.tmux, agent);
    if (!pane || pane.dead) return { ok: false, gone: true, reason: pane ? `pane ${pane.id} is dead` : 'no pane' };
    // The bundled demo agent stands in for the kind and draws none of its dialogs.
    if (pane.demo) return { ok: false, gone: false, reason: 'the demo agent draws no dialogs' };
    const lines = await capture(this.tmux, pane, KINDS[agent.kind].colours);
    return lines ? { ok: true, pane, lines } : { ok: false, gone: false, reason: 'capture-pane failed' };
  }

  async press(pane: PaneRef, key: DialogKey): Promise<Typed<void>> {
    // A key name from the fixed list only: nothing a message or a person wrote ever becomes a key here.
    if (!(DIALOG_KEYS as readonly string[]).includes(key)) return fail(`"${key}" is not a dialog key`, false);
    return this.sendKey(pane, key);
  }

  /** One key by name (never text), guarded. */
  private async sendKey(pane: PaneRef, key: string): Promise<Typed<void>> {
    const r = await this.guarded(pane, `send-keys -t ${pane.id} ${key}`);
    if (r.ok) return { ok: true, value: undefined };
    return r.refused ? r : fail(`${key} into ${pane.id} failed: ${r.error}`, true);
  }

  intake(agent: Agent, pane: PaneInfo): Promise<Intake> {
    return intakeOf(agent, pane);
  }

  async paste(pane: PaneInfo, text: string): Promise<Typed<number>> {
    const buffer = `baton-${process.pid}-${++bufferSeq}`;
    // -p: bracketed, when the program asked for it; -r: newlines stay LF, so the text arrives byte for
    // byte. -d: the buffer goes with the paste.
    const command = `paste-buffer -p -r -d -b ${buffer} -t ${pane.id}`;
    const ref = paneRef(pane);
    const sent = await this.tmux.setBufferThenIf(buffer, text, {
      target: pane.id,
      condition: guard(this.fenceNow, ref),
      command,
      skipped: skipReport(this.fenceNow),
    });
    if (!sent.set.ok) {
      // Timed out, the guarded paste sent behind it may have run all the same; otherwise it had no buffer.
      const maybe = sent.set.timedOut && sent.guarded !== null;
      const why = sent.set.timedOut ? 'tmux timed out' : sent.set.stderr || `exit ${sent.set.exitCode}`;
      if (!maybe) await this.tmux.run(['delete-buffer', '-b', buffer]);
      return fail(`paste into ${pane.id} failed: ${why}`, maybe);
    }
    const r = await this.guarded(ref, command, sent.guarded ? { first: sent.guarded } : {});
    const at = performance.now();
    if (!r.ok) {
      await this.tmux.run(['delete-buffer', '-b', buffer]);
      return r.refused ? r : fail(`paste into ${pane.id} failed: ${r.error}`, r.maybeTyped);
    }
    return { ok: true, value: at };
  }

  /** The pane now, if it is still the instance `ref` names. */
  private async same(ref: PaneRef): Promise<PaneInfo | null> {
    const now = await probe(this.tmux, ref.id);
    return now && samePane(paneRef(now), ref) ? now : null;
  }

  async landed(agent: Agent, ref: PaneRef, paste: { at: number; text?: string | undefined }): Promise<boolean> {
    const kind = KINDS[agent.kind];
    const configured = this.configuredDelay();
    let floor = configured ?? kind.enterDelayMs;
    if (kind.readScreen) {
      // A kind whose screen is read: the box must show it. (For the others asking tmux whether the pane is
      // still the same instance would be a round trip for nothing: the Enter checks that inside tmux.)
      const pane = await this.same(ref);
      if (!pane) return false;
      if (screenRead(agent, pane) && !(await this.boxShows(agent, pane))) return false;
    } else if (kind.echoFloorMs !== undefined && configured === undefined && paste.text !== undefined) {
      if (await this.echoes(ref, tailOf(paste.text), paste.at, kind)) floor = kind.echoFloorMs;
    }
    await until(paste.at + floor);
    return true;
  }

  /** Does the box show the paste within `boundMs`? Then the kind's settleMs more. */
  private async boxShows(agent: Agent, pane: PaneInfo, boundMs = 1500): Promise<boolean> {
    for (const end = performance.now() + boundMs; performance.now() < end; await sleep(25)) {
      if ((await readScreen(this.tmux, agent, pane))?.state !== 'holding') continue;
      // Drawn is not yet taken: Gemini CLI makes an Enter within 40 ms of handling a paste a newline (kinds.ts).
      const settle = KINDS[agent.kind].settleMs ?? 0;
      if (settle > 0) await sleep(settle);
      return true;
    }
    return false;
  }

  /** Does the paste's end show at the cursor between the kind's echo floor and its enterDelayMs (kinds.ts)? */
  private async echoes(ref: PaneRef, tail: string, at: number, kind: KindSpec): Promise<boolean> {
    await until(at + (kind.echoFloorMs ?? 0));
    for (;;) {
      const seen = await echoed(this.tmux, ref.id, tail);
      if (seen !== false) return seen === true; // null: tmux cannot tell, and waiting will not change that
      if (performance.now() + ECHO_STEP_MS > at + kind.enterDelayMs) return false;
      await sleep(ECHO_STEP_MS);
    }
  }

  async enter(agent: Agent, pane: PaneRef, opts?: { alone: true }): Promise<Typed<void>> {
    const key = opts?.alone ? 'Enter' : await this.submitKey(agent, pane);
    const r = await this.sendKey(pane, key);
    // Its submit first: a paste right behind it could join it.
    if (r.ok && opts?.alone) await sleep(this.configuredDelay() ?? KINDS[agent.kind].enterDelayMs);
    return r;
  }

  /** Enter, or the kind's key for a message to a busy agent that must be a turn of its own. */
  private async submitKey(agent: Agent, ref: PaneRef): Promise<'Enter' | 'Tab'> {
    const busyKey = KINDS[agent.kind].busySubmit;
    const pane = busyKey ? await this.same(ref) : null;
    if (!busyKey || !pane) return 'Enter';
    const screen = await readScreen(this.tmux, agent, pane);
    return screen?.state === 'holding' && screen.busy ? busyKey : 'Enter';
  }

  async confirm(agent: Agent, ref: PaneRef, ours: string, boundMs = 1500): Promise<Typed<Confirmation>> {
    // Not read, whatever the pane is now: no round trip to find out.
    if (!KINDS[agent.kind].readScreen) return { ok: true, value: 'not_checked' };
    const pane = await this.same(ref);
    // The Enter reached the instance that had the text; if it is gone since, there is no screen to read.
    if (!pane || !screenRead(agent, pane)) return { ok: true, value: 'not_checked' };
    for (const attempt of [1, 2]) {
      let last: Screen | null = null;
      for (const end = performance.now() + boundMs; performance.now() < end; await sleep(100)) {
        last = await readScreen(this.tmux, agent, pane);
        // A dialog in the box's place: the text left it and the agent already asks a person something (a
        // permission, a question — a fast model asked within 100 ms of the Enter). Submitted; and never a
        // second Enter, which would answer that dialog.
        if (last?.state === 'ready' || last?.state === 'dialog')
          return { ok: true, value: attempt === 1 ? 'screen' : 'screen_after_second_enter' };
      }
      if (last?.state !== 'holding')
        return fail(`not confirmed: ${last ? screenProblem(last) : 'screen unreadable'}`, true);
      // Enter again only on our own text: what a person typed meanwhile is never submitted by baton.
      if (!isOurPaste(last.input, ours)) return fail(`not confirmed: ${screenProblem(last)}`, true);
      if (attempt === 1) {
        const again = await this.enter(agent, ref);
        if (!again.ok) return again;
      }
    }
    return fail(`not submitted: the text is still in ${pane.id}'s input box after a second Enter`, true);
  }

  close(): void {
    if (this.ownsTmux) this.tmux.close();
  }
}
