/**
 * A Typist that records every call and answers from a script, as libtmux tests its agent driver against
 * a recording engine: the courier's phase machine, backoff and redelivery are unit-tested with it, with
 * no tmux. Each step answers ok unless the script says otherwise for that call. When the Enter goes is the
 * typist's own business (the kind's rule), so `landed` only says whether the paste showed.
 */
import type { Agent } from '../../src/config/config.js';
import type { Confirmation } from '../../src/core/record.js';
import type { Refusal, TmuxFence } from '../../src/terminal/fence.js';
import type { PaneInfo, PaneRef } from '../../src/terminal/pane.js';
import type { DialogKey } from '../../src/terminal/dialogs/index.js';
import type { Box, Intake, Look, Ready, Typed, Typist } from '../../src/terminal/typist.js';

export type Call =
  | { step: 'ready'; agent: string; ours?: string | undefined }
  | { step: 'box'; pane: string; copies: readonly string[] }
  | { step: 'paste'; pane: string; text: string }
  | { step: 'landed'; pane: string }
  | { step: 'enter'; pane: string; alone?: true }
  | { step: 'confirm'; pane: string; ours: string }
  | { step: 'look'; agent: string }
  | { step: 'press'; pane: string; key: string };

type Failure = { ok: false; error: string; maybeTyped: boolean; refused?: Refusal };

export const pane = (id = '%1', pid = 100, server = '1:1'): PaneInfo => ({
  id,
  session: 's',
  dead: false,
  inMode: false,
  command: 'x',
  agentPane: id,
  demo: false,
  activity: 0,
  startCommand: '',
  pid,
  server,
  tty: '/dev/pts/1',
  bracketed: true,
  start: '',
});

export class RecordingTypist implements Typist {
  readonly calls: Call[] = [];
  /** Scripted answers, consumed in order per step; a step with none left answers ok. */
  readonly script: {
    ready: Ready[];
    box: Box[];
    intake: Intake[];
    paste: Failure[];
    landed: boolean[];
    enter: Failure[];
    confirm: Array<Failure | Confirmation>;
    /** A screen's lines per look (the last one stays); none: no pane to look at. */
    look: Look[];
    press: Failure[];
  } = { ready: [], box: [], intake: [], paste: [], landed: [], enter: [], confirm: [], look: [], press: [] };
  fenced: TmuxFence | null = null;
  private clock = 0;

  /** The pane an agent's target names now (restarted.ts compares it with where a message went). */
  located: PaneInfo | null = pane();

  async locate(): Promise<PaneInfo | null> {
    return this.located;
  }

  async ready(agent: Agent, ours?: string): Promise<Ready> {
    this.calls.push({ step: 'ready', agent: agent.name, ours });
    return this.script.ready.shift() ?? { ok: true, pane: pane() };
  }

  /** A kind whose box is not read, unless the script says what the box holds. */
  async box(_agent: Agent, p: PaneInfo, copies: readonly string[]): Promise<Box> {
    this.calls.push({ step: 'box', pane: p.id, copies });
    return this.script.box.shift() ?? { kind: 'unread' };
  }

  async intake(): Promise<Intake> {
    return this.script.intake.shift() ?? 'whole';
  }

  async fence(f: TmuxFence | null): Promise<void> {
    this.fenced = f;
  }

  async paste(p: PaneInfo, text: string): Promise<Typed<number>> {
    this.calls.push({ step: 'paste', pane: p.id, text });
    return this.script.paste.shift() ?? { ok: true, value: ++this.clock };
  }

  async landed(_agent: Agent, p: PaneRef): Promise<boolean> {
    this.calls.push({ step: 'landed', pane: p.id });
    return this.script.landed.shift() ?? true;
  }

  async enter(_agent: Agent, p: PaneRef, opts?: { alone: true }): Promise<Typed<void>> {
    this.calls.push({ step: 'enter', pane: p.id, ...opts });
    return this.script.enter.shift() ?? { ok: true, value: undefined };
  }

  async confirm(_agent: Agent, p: PaneRef, ours: string): Promise<Typed<Confirmation>> {
    this.calls.push({ step: 'confirm', pane: p.id, ours });
    const next = this.script.confirm.shift() ?? 'not_checked';
    return typeof next === 'string' ? { ok: true, value: next } : next;
  }

  async look(agent: Agent): Promise<Look> {
    this.calls.push({ step: 'look', agent: agent.name });
    const next = this.script.look.length > 1 ? this.script.look.shift()! : this.script.look[0];
    return next ?? { ok: false, gone: true, reason: 'no pane' };
  }

  async press(p: PaneRef, key: DialogKey): Promise<Typed<void>> {
    this.calls.push({ step: 'press', pane: p.id, key });
    return this.script.press.shift() ?? { ok: true, value: undefined };
  }

  close(): void {}

  /** The steps taken so far, by name (and the header line of each paste). */
  steps(): string[] {
    return this.calls.map((c) => (c.step === 'paste' ? `paste ${c.text.split('\n')[0]}` : c.step));
  }
}
