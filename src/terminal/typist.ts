/**
 * The terminal side as the daemon's typing pipeline (daemon/pipeline.ts) sees it: an agent's pane, ready or
 * why not, and the steps of typing into it. An interface, so the pipeline and the courier's phase machine,
 * backoff and redelivery are unit-tested against a recording fake (test/helpers/recording-typist.ts);
 * tmux-typist.ts is the real one, tested against a private tmux server. Outcomes are data: a step that fails
 * says why and whether the text may have reached the pane.
 */
import type { Agent } from '../config/config.js';
import type { Confirmation } from '../core/record.js';
import type { DialogKey } from './dialogs/index.js';
import type { Refusal, TmuxFence } from './fence.js';
import type { PaneInfo, PaneRef } from './pane.js';
import type { Screen } from './screen.js';

export type Ready = { ok: true; pane: PaneInfo } | { ok: false; reason: string; screen?: Screen };

/** An agent's screen as it is now (its lines as captured, with colours where its kind reads them), or why not (`gone`: no live pane). */
export type Look = { ok: true; pane: PaneInfo; lines: string[] } | { ok: false; gone: boolean; reason: string };

/**
 * A step's outcome. `maybeTyped`: the text may be in the pane even though the step failed (a timeout
 * mid-paste). `refused`: tmux refused the keystroke itself (terminal/fence.ts says why).
 */
export type Typed<T> = { ok: true; value: T } | { ok: false; error: string; maybeTyped: boolean; refused?: Refusal };

/** How a pane takes a message (terminal/readiness.ts decides, from tmux and the pane's terminal). */
export type Intake =
  /** Everything, as one bracketed paste. */
  | 'whole'
  /** One line: the program did not ask for bracketed paste, so each line break would submit. */
  | 'one_line'
  /** Nothing of the content: a shell would run it. Only a line naming the message (`baton show ID`). */
  | 'inert';

/**
 * What an agent's input box holds, against the copies of a message that may already be there: `unread`
 * for a kind whose box baton does not read, `empty`, `copy` (`which` copy, null when the client's paste
 * marker cannot tell), or `other` (anything else, said in `detail`).
 */
export type Box =
  | { kind: 'unread' }
  | { kind: 'empty' }
  | { kind: 'copy'; which: number | null }
  | { kind: 'other'; detail: string };

export interface Typist {
  /** The pane the agent's target names now, whatever it shows (null: none): no screen is read. */
  locate(agent: Agent): Promise<PaneInfo | null>;
  /**
   * The agent's pane when text may be typed into it now, else why not. `ours`: how a delivery that may
   * already be in the box starts (pasted, not yet submitted), so text there that is its own does not block.
   */
  ready(agent: Agent, ours?: string): Promise<Ready>;
  /** How this pane takes text now. */
  intake(agent: Agent, pane: PaneInfo): Promise<Intake>;
  /** What this pane's input box holds (kinds whose screen is read), against `copies` of a message. */
  box(agent: Agent, pane: PaneInfo, copies: readonly string[]): Promise<Box>;
  /** Paste `text` as one unit, into this very pane instance. Resolves with performance.now() when done. */
  paste(pane: PaneInfo, text: string): Promise<Typed<number>>;
  /**
   * Wait until Enter may follow the paste made at `paste.at` (of `paste.text`, when the caller has it):
   * the agent's kind decides (kinds.ts), or `delivery.enter_delay_ms`. False when the paste never showed in
   * an input box baton reads (it is lost to that pane).
   */
  landed(agent: Agent, pane: PaneRef, paste: { at: number; text?: string | undefined }): Promise<boolean>;
  /**
   * Press Enter now, into the pane instance that got the paste and only into it: the kind's key for a busy
   * agent where Enter would not make a turn of its own (Codex: Tab). `alone`: no paste of ours before it
   * (whatever an earlier one left goes as a submit of its own); it is Enter, and the kind's pause follows it,
   * so a paste after it is not taken into that submit.
   */
  enter(agent: Agent, pane: PaneRef, opts?: { alone: true }): Promise<Typed<void>>;
  /** After Enter: was it submitted? One more Enter when text starting with `ours` is still in the box. */
  confirm(agent: Agent, pane: PaneRef, ours: string): Promise<Typed<Confirmation>>;
  /** The agent's screen now: to see a dialog open or close (daemon/dialogs.ts), to answer one (daemon/answer.ts). */
  look(agent: Agent): Promise<Look>;
  /** Press one key of a dialog's (terminal/dialogs/) into this very pane instance, guarded as every keystroke is. */
  press(pane: PaneRef, key: DialogKey): Promise<Typed<void>>;
  /** From now on every keystroke carries this lease's token (null: none, a one-shot answer). */
  fence(f: TmuxFence | null): Promise<void>;
  close(): void;
}
