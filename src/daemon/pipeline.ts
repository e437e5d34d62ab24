/**
 * The one typing pipeline: everything typed into a pane goes through it — a delivered message (courier.ts), a
 * person's (person.ts), a note to all (notes.ts), baton's notices (notice()). Steps: the gate (nothing holds the
 * agent, no unstamped delivery is for it, its pane is ready); the text (an envelope rendered by core/compose.ts, or
 * baton's words as they are); leftovers (leftover.ts) when it may have been typed before; the paste, shaped for how
 * the pane takes it; Enter once the typist says it landed, into that pane instance only; the confirmation.
 * Why one path, not four: docs/decisions/0010-one-typing-pipeline.md.
 */
import { FencedError, type Events, type Requests } from '../bus/bus.js';
import { isLocal, type Agent } from '../config/config.js';
import { headerPrefix, inertLine, oneLine, render, type Envelope } from '../core/compose.js';
import { cleared, confirmed, entered, failed, found, fresh, pasted, type Typing } from '../core/delivery.js';
import { failpoint } from '../lib/failpoint.js';
import type { Refusal } from '../terminal/fence.js';
import { paneRef, samePane, type PaneInfo } from '../terminal/pane.js';
import type { Intake, Ready } from '../terminal/typist.js';
import type { Availability } from './availability.js';
import { leftover } from './leftover.js';
import type { Shown } from './shown.js';
import type { Underway } from './underway.js';
import type { Uses } from './context.js';

export interface PipelineParts extends Uses<'config' | 'log' | 'typist'> {
  availability: Availability;
  /** The delivery not yet stamped: nothing else goes into its receiver's pane before its Enter. */
  underway: Underway;
  /** Leftover pastes found are logged; a notice for another machine's agent is handed to its daemon. */
  bus: Events & Pick<Requests, 'forward'>;
  /** Why nothing at all may be typed into this agent's pane now (a permission dialog), or null. Checked first. */
  hold?(agent: string): Promise<string | null>;
  /** Copies of the records a text names for `baton show` (shown.ts): the PostgreSQL bus's; panes can't read it. */
  shown?: Shown;
}

/** What is typed: a message in its envelope (rendered here), or baton's own words as they are. */
type Text =
  | { notice: string }
  | {
      envelope: Omit<Envelope, 'redelivered'>;
      hint: string;
      /** What its receiver missed (docs/protocol.md §11), typed after the header, and the IDs it names. */
      catchUp?: () => Promise<{ text: string; named: readonly string[] }>;
    };

export interface Job {
  /** The agent whose pane gets it. */
  to: string;
  text: Text;
  /** The pane the gate has just given for it (the caller did something between): not looked at again. */
  pane?: PaneInfo | undefined;
  /** The text as pasted (a receipt is compared with all of it). */
  typed?(text: string): void;
  /** Each step's new state as it is taken, so the delivery under way is known while a step runs. */
  keep?(t: Typing): void;
}

/** Why it stopped short: the gate said no, or a step failed (`untouched`: the box holds other text, nothing was typed). */
export type Stop = { kind: 'unavailable'; reason: string } | { kind: 'failed'; error: string; untouched?: true };

/** What a stop says to a person or a log. */
export const why = (s: Stop): string => (s.kind === 'unavailable' ? s.reason : s.error);

export type Outcome =
  | { typing: Typing; stop: Stop }
  | { typing: Extract<Typing, { phase: 'confirmed' }>; stop: null; pane: PaneInfo };

/** How the pane takes text (terminal/readiness.ts decides): all of it, on one line, or only a line naming it. */
const SHAPE: Record<Intake, (text: string) => string> = { whole: (t) => t, one_line: oneLine, inert: inertLine };

type At<P extends Typing['phase']> = Extract<Typing, { phase: P }>;

/** What one advance() types with, fixed once the gate has given its pane. */
type Run = { job: Job; id: string | undefined; agent: Agent; pane: PaneInfo };

/** A step that failed: its error, and how far back its typing goes (core/delivery.ts's failed). */
type Failure = {
  error: string;
  maybeTyped: boolean;
  pasteLost?: boolean;
  refused?: Refusal | undefined;
  untouched?: true;
};

/** A step's new state, told to the job as it is taken. */
function kept<T extends Typing>(job: Job, n: T): T {
  job.keep?.(n);
  return n;
}

/** Refused because the pane is another one now, or dead: a paste in it is lost. */
const lost = (refused?: Refusal): boolean => refused === 'moved' || refused === 'dead';

export class Pipeline {
  constructor(private readonly p: PipelineParts) {}

  /**
   * May text be typed into `agent`'s pane now? Its pane, else why not. `own`: the message asking: the delivery under
   * way goes on into its own receiver's pane, and (`inBox`) its own unsubmitted paste there does not count against it.
   */
  async gate(agent: string, own?: { id: string; inBox: boolean }): Promise<Ready> {
    const held = await this.held(agent);
    if (held) return { ok: false, reason: held.reason };
    const under = this.p.underway.delivery?.record;
    if (under?.receiver === agent && under.id !== own?.id)
      return { ok: false, reason: `a message to ${agent} is still being delivered` };
    return this.p.availability.check(agent, own?.inBox ? headerPrefix(own.id) : undefined);
  }

  /** Type it from `start` as far as it goes now: to its confirmation, or to where it must stop. */
  async advance(job: Job, start: Typing): Promise<Outcome> {
    const id = 'envelope' in job.text ? job.text.envelope.id : undefined;
    let t: Typing = start;
    let pane = job.pane;
    if (!pane) {
      const ready = await this.gate(job.to, id ? { id, inBox: t.typed } : undefined);
      if (!ready.ok) return { typing: t, stop: { kind: 'unavailable', reason: ready.reason } };
      pane = ready.pane;
    }
    const run: Run = { job, id, agent: this.p.config.agents[job.to]!, pane };
    if (t.phase === 'pasted' && !samePane(paneRef(pane), t.pane))
      return this.stop(run, t, {
        error: `${job.to}'s pane is not the one the paste went into (${t.pane.id}, process ${t.pane.pid}); typing it again in ${pane.id}`,
        maybeTyped: true,
        pasteLost: true,
      });
    let typed: string | undefined;
    if (t.phase === 'committed') {
      const out = await this.typeIn(run, t);
      if ('stop' in out) return out;
      t = out.t;
      typed = out.typed;
    }
    const agent = run.agent;
    if (t.phase === 'pasted') {
      // Not in the box (lost, or cleared by someone): nothing to submit. Typed again next time, flagged.
      if (!(await this.p.typist.landed(agent, t.pane, { at: t.pastedAt, text: typed })))
        return this.stop(run, t, {
          error: `the paste never showed in ${t.pane.id}'s input box`,
          maybeTyped: true,
          pasteLost: true,
        });
      // An Enter into a dialog that opened after the paste would answer it: the paste waits in the box, and
      // its Enter is pressed once the dialog is gone (a pasted typing goes on at its Enter).
      const held = await this.held(job.to);
      if (held) return { typing: t, stop: held };
      const e = await this.keyed(t.pane.id, this.p.typist.enter(agent, t.pane));
      // Refused because the pane is another one now, or dead: the text is lost to it. In copy mode: later.
      if (!e.ok)
        return this.stop(run, t, { error: e.error, maybeTyped: true, pasteLost: lost(e.refused), refused: e.refused });
      // This machine's own clock, not the conversation's: entered_at is set against the receipt the agent's
      // hook writes here (its `at`, by the same clock) to measure how long the agent took to get the text.
      t = kept(job, entered(t, Date.now()));
    }
    if (t.phase === 'entered') {
      const ours = id ? headerPrefix(id) : (typed ?? '').slice(0, 40);
      const c = await this.keyed(t.pane.id, this.p.typist.confirm(agent, t.pane, ours));
      if (!c.ok) return this.stop(run, t, { error: c.error, maybeTyped: true, refused: c.refused });
      t = kept(job, confirmed(t, c.value));
    }
    this.p.availability.succeeded(job.to);
    return { typing: t, stop: null, pane };
  }

  /** Baton's own words into an agent's pane, or to its machine's daemon. Null when done, else why not. */
  async notice(agent: string, text: string): Promise<string | null> {
    // Another machine's agent (docs/protocol.md §10): its machine's daemon types the notice.
    if (!isLocal(this.p.config, agent)) {
      await this.p.bus.forward({ op: 'notice', to: agent, text });
      return null;
    }
    const { stop } = await this.advance({ to: agent, text: { notice: text } }, fresh(false));
    return stop && why(stop);
  }

  /** committed → pasted: rendered, a leftover looked for if it may have been typed (if it is this one: submitted). */
  private async typeIn(run: Run, from: At<'committed'>): Promise<Outcome | { t: At<'pasted'>; typed?: string }> {
    const { job, id, agent, pane } = run;
    const text = job.text;
    let t = from;
    const catchUp = 'envelope' in text && text.catchUp ? await text.catchUp() : { text: '', named: [] };
    const copy = (flagged: boolean): string =>
      'notice' in text
        ? text.notice
        : render({ ...text.envelope, redelivered: flagged }, this.p.config.delivery.template, text.hint, catchUp.text);
    if (t.typed) {
      // It may be in the box already, unsubmitted (leftover.ts): never pasted behind itself.
      const copies = [copy(false), copy(true)] as const;
      const look = { id: id ?? '', receiver: job.to, leftover: t.leftover, agent, pane, copies };
      const left = await this.keyed(pane.id, leftover(this.p, look));
      if (left.kind === 'other') return this.stop(run, t, { error: left.error, maybeTyped: true, untouched: true });
      if (left.kind === 'failed') {
        const { error, refused } = left.failure;
        return this.stop(run, t, { error, maybeTyped: true, pasteLost: lost(refused), refused });
      }
      if (left.kind === 'found') return { t: kept(job, found(paneRef(pane), performance.now(), left.flagged)) };
      if (left.kind === 'entered') t = kept(job, cleared(t));
    }
    const intake = await this.p.typist.intake(agent, pane);
    const typed = SHAPE[intake](copy(t.typed));
    // Before the pane is told a name, its copy is there to read (a shell reads the message itself so).
    const named = [...(intake === 'inert' && id ? [id] : []), ...catchUp.named];
    if (named.length) await this.p.shown?.keep(named);
    // A dialog may have opened while the leftover look, the catch-up and the copies ran: a paste now
    // would land in it. Nothing typed yet; it goes on from here once the hold is lifted.
    const held = await this.held(job.to);
    if (held) return { typing: t, stop: held };
    job.typed?.(typed);
    const p = await this.keyed(pane.id, this.p.typist.paste(pane, typed));
    if (!p.ok) return this.stop(run, t, p);
    const out = kept(job, pasted(t, paneRef(pane), p.value));
    failpoint('pasted');
    return { t: out, typed };
  }

  /** A step failed: back as far as it must go, looked at again after the agent's backoff. Fenced: this daemon stops. */
  private stop(run: Run, t: Typing, f: Failure): Outcome {
    if (f.refused === 'fenced') throw new FencedError(f.error);
    this.p.availability.retryLater(run.job.to);
    const stop: Stop = { kind: 'failed', error: f.error, ...(f.untouched && { untouched: f.untouched }) };
    return { typing: kept(run.job, failed(t, f)), stop };
  }

  /** The hold on `agent` now, as a stop (null: nothing holds it). */
  private async held(agent: string): Promise<Extract<Stop, { kind: 'unavailable' }> | null> {
    const reason = await this.p.hold?.(agent);
    return reason ? { kind: 'unavailable', reason } : null;
  }

  /** A keystroke into the pane: an early look at it started before is stale from then on (availability.ts). */
  private keyed<T>(paneId: string, step: Promise<T>): Promise<T> {
    return step.finally(() => this.p.availability.typed(paneId));
  }
}
