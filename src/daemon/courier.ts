/**
 * The courier: types one committed message into its receiver's pane, phase by phase (core/delivery.ts
 * has the phases), and stamps it delivered once the submit is confirmed. One delivery at a time: until it
 * is stamped, nothing else is delivered and nothing is typed into that pane.
 *
 * Each step runs once: a retry after a failed Enter presses only Enter, a retry after an unconfirmed
 * submit only looks (and presses Enter once more if the text is still there), a paste that never showed
 * is pasted again in full, flagged "(redelivered)", and after a failed stamp nothing is typed at all.
 *
 * An Enter goes only to the pane instance that got the paste (with the session replaced inside the Enter
 * delay, a retried Enter once went alone into the new pane, and the message was stamped delivered though that
 * pane never got its text): when the agent's pane is another one now — its session replaced, its tmux server
 * restarted, its program restarted after it died — that paste is lost to it, and the message is typed again
 * in full, flagged, into the pane there is now; never an Enter alone. A person scrolling (copy mode) holds
 * the Enter until they stop. A keystroke tmux refuses because another daemon holds the conversation stops
 * this daemon (FencedError).
 * Before a message that may have been typed is typed again, what an earlier paste left in the pane is looked
 * for (leftover.ts): found in the box, it is submitted, not pasted behind itself.
 * A failure is reported once per distinct error (`delivery_failed`) and retried with the receiver's
 * backoff; it is never stamped delivered.
 */
import { FencedError, isoAt, type Clock, type Events, type Records, type TurnStep } from '../bus/bus.js';
import type { Config } from '../config/config.js';
import { headerPrefix, inertLine, oneLine, render, replyHint } from '../core/compose.js';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  begin,
  cleared,
  confirmed,
  entered,
  failed,
  found,
  mayBeInBox,
  pasted,
  saved,
  type Delivery,
  type Timing,
} from '../core/delivery.js';
import { stamped, withReceipt, type ArchiveRecord } from '../core/record.js';
import { failpoint } from '../lib/failpoint.js';
import type { Logger } from '../lib/log.js';
import type { Received } from '../core/receipt.js';
import { paneRef, samePane, type PaneInfo } from '../terminal/pane.js';
import type { Typed, Typist } from '../terminal/typist.js';
import type { Availability } from './availability.js';
import { leftover } from './leftover.js';
import type { Underway } from './underway.js';

export interface CourierParts {
  config: Config;
  /** The turn step's state write it may have to finish, the stamp, and the events. */
  bus: TurnStep & Records & Events & Clock;
  typist: Typist;
  availability: Availability;
  log: Logger;
  /** Where the delivery under way is kept, for the parts that must not type into its pane meanwhile. */
  underway: Underway;
  /** Called once a delivery is stamped (the conversation may end with it). */
  delivered(record: ArchiveRecord): Promise<void>;
  /** The agents' hooks (receipts.ts): a receipt that came before the stamp goes into the record with it. */
  receipts?: {
    takeEarly(id: string): Received | undefined;
    stamped(id: string, agent: string, received: boolean): void;
    /** The text pasted for a message: its receipt is compared with all of it (a catch-up included). */
    typed?(id: string, text: string): void;
  };
  /**
   * What the receiver missed since its last turn (daemon/catch-up.ts, docs/protocol.md §11): typed after
   * the header, in the same paste. From the archive, so a message typed again carries the same.
   */
  catchUp?(record: ArchiveRecord): Promise<string>;
}

/** The message as pasted: with "(redelivered)" in its header when it may have been typed before. */
/** The text a message is typed as; `catchUp`: what its receiver missed (docs/protocol.md §11), or ''. */
function textOf(config: Config, r: ArchiveRecord, m: { redelivered: boolean; catchUp: string }): string {
  const { id, sender: from, receiver: to, reply_to, type, subject, content } = r;
  return render(
    { id, from, to, reply_to, type, subject, content, redelivered: m.redelivered },
    config.delivery.template,
    replyHint(config, r.receiver),
    m.catchUp,
  );
}

export class Courier {
  /** The last failure reported for the delivery, so a retry failing the same way is not logged again. */
  private lastError: string | null = null;

  constructor(private readonly p: CourierParts) {}

  private get delivery(): Delivery | null {
    return this.p.underway.delivery;
  }

  private set delivery(d: Delivery | null) {
    this.p.underway.delivery = d;
  }

  /** The receiver of the delivery not yet stamped (its paste may be in the box without its Enter). */
  get to(): string | null {
    return this.p.underway.to;
  }

  get busy(): boolean {
    return this.p.underway.busy;
  }

  /** The phase of the delivery under way, for status and tests. */
  get phase(): Delivery['phase'] | null {
    return this.delivery?.phase ?? null;
  }

  /** A turn step was committed (or found cut short at start-up): deliver it next. */
  begin(record: ArchiveRecord, timing: Timing, opts: { typed: boolean; saved: boolean }): void {
    this.delivery = begin(record, timing, opts);
    this.lastError = null;
  }

  /** Take the delivery one phase further, as far as it goes. True once stamped; false when it must wait. */
  async advance(checked?: PaneInfo): Promise<boolean> {
    let d = this.delivery!;
    const r = d.record;
    if (d.phase === 'archived') {
      // The state write failed after archiving: write it before typing (a crash must find it COMMITTED).
      await this.p.bus.saveState();
      d = this.set(saved(d));
    }
    const ours = headerPrefix(r.id);
    // The caller may have just checked the pane; a retry looks again. Text in the input box may be this
    // very message (pasted, not yet submitted; or pasted before a crash), so it does not make it wait.
    let pane = checked;
    if (!pane) {
      const ready = await this.p.availability.check(r.receiver, mayBeInBox(d) ? ours : undefined);
      if (!ready.ok) return false;
      pane = ready.pane;
    }
    const agent = this.p.config.agents[r.receiver]!;
    if (d.phase === 'pasted' && !samePane(paneRef(pane), d.pane)) {
      return this.failed(
        d,
        `${r.receiver}'s pane is not the one the paste went into (${d.pane.id}, process ${d.pane.pid}); typing it again in ${pane.id}`,
        { maybeTyped: true, pasteLost: true },
      );
    }
    // The same for a message typed again: its receiver's place moves only past what was delivered to it.
    const catchUp = d.phase === 'committed' ? ((await this.p.catchUp?.(r)) ?? '') : '';
    if (d.phase === 'committed' && d.typed) {
      // It may be in the box already, unsubmitted (leftover.ts): never pasted behind itself.
      const left = await leftover(this.p, {
        id: r.id,
        receiver: r.receiver,
        leftover: d.leftover,
        agent,
        pane,
        copies: [
          textOf(this.p.config, r, { redelivered: false, catchUp }),
          textOf(this.p.config, r, { redelivered: true, catchUp }),
        ],
      });
      if (left.kind === 'other') return this.failed(d, left.error, { maybeTyped: true });
      if (left.kind === 'failed') {
        const gone = left.failure.refused === 'moved' || left.failure.refused === 'dead';
        return this.refusedOr(d, left.failure, { maybeTyped: true, pasteLost: gone });
      }
      if (left.kind === 'found') d = this.set(found(d, paneRef(pane), performance.now(), left.flagged));
      else if (left.kind === 'entered') {
        d = this.set(cleared(d));
        await sleep(this.p.typist.enterDelay(agent)); // its submit first, then the paste
      }
    }
    if (d.phase === 'committed') {
      const text = textOf(this.p.config, r, { redelivered: d.typed, catchUp });
      const intake = await this.p.typist.intake(agent, pane);
      const typed = intake === 'inert' ? inertLine(text) : intake === 'one_line' ? oneLine(text) : text;
      this.p.receipts?.typed?.(r.id, typed);
      const p = await this.p.typist.paste(pane, typed);
      if (!p.ok) return this.refusedOr(d, p, { maybeTyped: p.maybeTyped });
      d = this.set(pasted(d, paneRef(pane), p.value));
      failpoint('pasted');
    }
    if (d.phase === 'pasted') {
      if (!(await this.p.typist.shown(agent, d.pane))) {
        // Not in the box (lost, or cleared by someone): nothing to submit. Typed again next time, flagged.
        return this.failed(d, `the paste never showed in ${d.pane.id}'s input box`, {
          maybeTyped: true,
          pasteLost: true,
        });
      }
      const e = await this.p.typist.enter(
        d.pane,
        Math.max(0, this.p.typist.enterDelay(agent) - (performance.now() - d.pastedAt)),
        agent,
      );
      // Refused because the pane is another one now, or dead: the text is lost to it. In copy mode: later.
      if (!e.ok)
        return this.refusedOr(d, e, { maybeTyped: true, pasteLost: e.refused === 'moved' || e.refused === 'dead' });
      // This machine's own clock, not the conversation's: entered_at is set against the receipt the agent's
      // hook writes here (its `at`, by the same clock) to measure how long the agent took to get the text.
      d = this.set(entered(d, Date.now()));
    }
    if (d.phase === 'entered') {
      const c = await this.p.typist.confirm(agent, d.pane, ours);
      if (!c.ok) return this.refusedOr(d, c, { maybeTyped: true });
      d = this.set(confirmed(d, c.value));
    }
    if (d.phase !== 'confirmed') return false;
    this.p.availability.succeeded(r.receiver);
    const done = withReceipt(
      stamped(r, d.confirmation, d.redelivered, isoAt(this.p.bus.now())),
      this.p.receipts?.takeEarly(r.id),
    );
    await this.p.bus.stamp(done);
    // Typed again after its receipt never came (pass.ts): stamped before, it keeps that stamp; the flag goes on.
    if (r.delivered_at && d.redelivered) await this.p.bus.amend(r.id, { redelivered: true });
    // The bundled demo agent has no hooks, whatever kind it stands in for: no receipt is awaited from it
    // (a `--kind claude` demo raised delivery_unconfirmed for every message).
    if (!pane.demo) this.p.receipts?.stamped(r.id, r.receiver, Boolean(done.received));
    this.delivery = null;
    await report(this.p, done, d);
    await this.p.delivered(done);
    return true;
  }

  private set(d: Delivery): Delivery {
    this.delivery = d;
    return d;
  }

  /** A step failed; one tmux refused because another daemon holds the conversation stops this one. */
  private refusedOr(
    d: Delivery,
    t: Extract<Typed<unknown>, { ok: false }>,
    how: { maybeTyped: boolean; pasteLost?: boolean },
  ): Promise<false> {
    if (t.refused === 'fenced') throw new FencedError(t.error);
    return this.failed(d, t.error, how);
  }

  private async failed(d: Delivery, error: string, how: { maybeTyped: boolean; pasteLost?: boolean }): Promise<false> {
    this.set(failed(d, how));
    const r = d.record;
    if (this.lastError !== error) {
      this.lastError = error;
      this.p.log.warn(`${r.id} → ${r.receiver}: ${error}; will retry`);
      const now = this.delivery!;
      await this.p.bus.events.emit('delivery_failed', {
        id: r.id,
        to: r.receiver,
        error,
        pasted: now.phase !== 'committed' && now.phase !== 'archived',
        entered: now.phase === 'entered' || now.phase === 'confirmed',
      });
    }
    this.p.availability.retryLater(r.receiver);
    return false;
  }

  /**
   * docs/protocol.md §7's latency_ms runs from first sight to the paste; a file written out of turn spent most of it
   * held, which is not delivery time (a message held 9 s for its turn was logged "msg_0009 … in 9220.9 ms",
   * as if typing it had been slow), so the two are told apart.
   */
}

/** A confirmed delivery's `delivered` (and `redelivered`) event and log line: held time apart from typing time. */
async function report(
  p: Pick<CourierParts, 'bus' | 'log'>,
  r: ArchiveRecord,
  d: Extract<Delivery, { phase: 'confirmed' }>,
): Promise<void> {
  const round = (ms: number) => Math.round(ms * 10) / 10;
  const { firstSeen, turnSince } = d.timing;
  const latency = round(d.pastedAt - firstSeen);
  const held = round(Math.max(0, turnSince - firstSeen));
  const typing = round(d.pastedAt - Math.max(firstSeen, turnSince));
  const flag = d.redelivered ? { redelivered: true } : {};
  if (d.redelivered) await p.bus.events.emit('redelivered', { id: r.id, from: r.sender, to: r.receiver });
  // How the submit was confirmed on the screen (a receipt from the agent's hook may replace it on the record).
  await p.bus.events.emit('delivered', {
    id: r.id,
    from: r.sender,
    to: r.receiver,
    reply_to: r.reply_to,
    latency_ms: latency,
    held_ms: held,
    delivery_ms: typing,
    submit: d.confirmation,
    entered_at: new Date(d.enteredAt).toISOString(),
    ...flag,
  });
  const heldNote = held >= 1000 ? ` (held ${(held / 1000).toFixed(1)} s before its turn)` : '';
  p.log.success(
    `${r.id} ${r.sender} → ${r.receiver}${d.redelivered ? ' (redelivered)' : ''} in ${typing} ms${heldNote}`,
  );
}
